// libFuzzer target: proxgen::io::read_npy on arbitrary bytes (see fuzz_reader.hpp).
#include "fuzz_reader.hpp"
#include "proxgen/io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return proxgen::fuzz::run_reader(data, size, [](proxgen::io::Bytes bytes) {
        return proxgen::io::read_npy(bytes, "fuzz.npy", proxgen::fuzz::limits);
    });
}
