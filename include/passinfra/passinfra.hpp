// passinfra/passinfra.hpp — everything: the static core, the dynamic bridge,
// the instruments and the IR helpers.
#pragma once

#include "passinfra/core.hpp"
#include "passinfra/dynamic.hpp"
