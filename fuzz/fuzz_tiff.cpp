// libFuzzer target: proxgen::io::read_tiff on arbitrary bytes (see fuzz_reader.hpp).
#include "fuzz_reader.hpp"
#include "proxgen/io/tiff.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return proxgen::fuzz::run_reader(data, size, [](proxgen::io::Bytes bytes) {
        return proxgen::io::read_tiff(bytes, "fuzz.tiff", proxgen::fuzz::limits);
    });
}
