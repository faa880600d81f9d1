// The one translation unit that defines Catch2's main(); test executables link it.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
