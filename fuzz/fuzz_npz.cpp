// libFuzzer target: proxgen::io::read_npz on arbitrary bytes (see fuzz_reader.hpp): lists the
// archive's arrays, then decodes each of the first four by name (and the default selection).
#include <string>
#include <vector>

#include "fuzz_reader.hpp"
#include "proxgen/io/npz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace proxgen;
    const io::Bytes bytes(data, size);
    std::vector<std::string> names;
    try {
        names = io::npz_array_names(bytes, "fuzz.npz");
    } catch (const Error&) {
        return 0;
    }
    if (names.size() > 4) names.resize(4);
    names.push_back("");  // the archive's only array, or an error listing them
    for (const std::string& name : names)
        fuzz::run_reader(data, size, [&](io::Bytes b) { return io::read_npz(b, "fuzz.npz", name, fuzz::limits); });
    return 0;
}
