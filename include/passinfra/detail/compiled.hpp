// passinfra/detail/compiled.hpp — the compiled-library mode's one macro.
//
// passinfra is header-only. Its cold code that does not depend on the IR
// (a context's option checks and messages, config registration and
// validation, did-you-mean suggestions, the log sink, PassInfo printing) is
// written as function templates with a defaulted parameter, instantiated
// once, as <void>: header-only, every translation unit that reaches one
// compiles it (inline, like any template).
//
// The compiled mode compiles them once, in a library: link
// passinfra::passinfra_compiled (CMake) instead of passinfra::passinfra. Its
// one source file (src/passinfra.cpp) defines PASSINFRA_IMPLEMENTATION and
// holds those <void> instances; its users get PASSINFRA_COMPILED, under which
// each is declared `extern template`, so a translation unit calls it and
// compiles none of it. Same behaviour in both modes; the instances are weak
// symbols, so translation units of either mode mix in one program.
//
// PASSINFRA_COLD_INSTANCE(declaration) follows the definition of each such
// template: nothing header-only, `extern template declaration;` under
// PASSINFRA_COMPILED, `template declaration;` under PASSINFRA_IMPLEMENTATION.
// (What is listed is what tests/compiled/ checks a user's object file does
// not define.)
#pragma once

#if defined(PASSINFRA_IMPLEMENTATION)
#define PASSINFRA_COLD_INSTANCE(...) template __VA_ARGS__;
#elif defined(PASSINFRA_COMPILED)
#define PASSINFRA_COLD_INSTANCE(...) extern template __VA_ARGS__;
#else
#define PASSINFRA_COLD_INSTANCE(...)
#endif
