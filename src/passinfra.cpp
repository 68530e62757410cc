// src/passinfra.cpp — the one source file of passinfra::passinfra_compiled.
//
// The compiled-library mode (detail/compiled.hpp): with
// PASSINFRA_IMPLEMENTATION, each PASSINFRA_COLD_INSTANCE in the headers is an
// explicit instantiation, so this file holds every IR-independent cold
// function once (a context's option checks and messages, config
// registration and validation, suggestions, the log sink, PassInfo
// printing); users of the library see them declared `extern template`
// (PASSINFRA_COMPILED) and compile none of them. passinfra.hpp: every header
// that has such a function (tool/ has none).
#ifndef PASSINFRA_IMPLEMENTATION
#define PASSINFRA_IMPLEMENTATION 1
#endif
#include <passinfra/passinfra.hpp>
