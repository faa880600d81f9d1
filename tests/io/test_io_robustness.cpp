// Damaged input never crashes a reader: every prefix of a valid file of each format is refused
// with proxgen::Error naming the file, every single-byte corruption either decodes or is refused
// the same way, the fuzzers' seed corpora (fuzz/corpus) decode, and every input a fuzzer once
// crashed on (tests/io/fuzz_regressions) is handled. Run under ASan/UBSan, this is where a
// reader's memory error shows up.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "io_test_support.hpp"
#include "proxgen/io/npz.hpp"

using namespace io_test;

namespace {

// One small valid file per format, written by ProxGen's own writers.
std::vector<std::pair<std::string, std::string>> valid_files() {
    std::vector<std::pair<std::string, std::string>> files;
    const Image img = pattern(12, 9, 3);
    for (const char* name : {"v.npy", "v.npz", "v.png", "v.jpg", "v.pfm", "v.tif"}) {
        const std::string path = temp_path(name);
        proxgen::save_image(path, img);
        files.emplace_back(name, read_bytes(path));
    }
    return files;
}

std::string reader_of(const std::string& ext) {
    if (ext == ".jpg" || ext == ".jpeg") return "jpeg";
    if (ext == ".tif" || ext == ".tiff") return "tiff";
    return ext.substr(1);
}

}  // namespace

TEST_CASE("a file cut short is refused with an error naming it, or decodes to the same image", "[io][robustness]") {
    // The second case exists: a TIFF whose last bytes (the offset of a next page) are missing
    // still holds all of its one page; libtiff reads it as the last page.
    for (const auto& [name, bytes] : valid_files()) {
        INFO(name << ", " << bytes.size() << " bytes");
        const Image whole = proxgen::decode_image(as_bytes(bytes), name);
        int decoded = 0;
        for (std::size_t keep = 0; keep < bytes.size(); ++keep) {
            const std::string cut = bytes.substr(0, keep);
            if (!decodes(cut, name)) continue;
            ++decoded;
            INFO("cut to " << keep << " bytes");
            CHECK(same_bits(proxgen::decode_image(as_bytes(cut), name), whole));
        }
        CHECK(decoded <= 8);
    }
}

TEST_CASE("single-byte corruptions decode or are refused, never crash", "[io][robustness]") {
    for (const auto& [name, bytes] : valid_files()) {
        INFO(name);
        int refused = 0;
        for (std::size_t at = 0; at < bytes.size(); ++at)
            for (unsigned char value : {0x00, 0xff, 0x80}) {
                std::string damaged = bytes;
                damaged[at] = char(value ^ (value == 0x80 ? damaged[at] : 0));
                if (!decodes(damaged, name)) ++refused;
            }
        CHECK(refused > 0);  // the sweep did reach the error paths
    }
}

TEST_CASE("every seed of the fuzz corpora decodes", "[io][robustness][fuzz]") {
    const fs::path corpus = source_path("fuzz/corpus");
    int seeds = 0;
    for (const auto& reader : {"npy", "npz", "png", "jpeg", "pfm", "tiff"}) {
        for (const auto& entry : fs::directory_iterator(corpus / reader)) {
            ++seeds;
            const std::string name = entry.path().filename().string();
            INFO(reader << "/" << name);
            CHECK(reader_of(entry.path().extension().string()) == reader);
            const std::string bytes = read_bytes(entry.path().string());
            if (std::string(reader) != "npz") {
                CHECK(decodes(bytes, name));
                continue;
            }
            for (const std::string& array : proxgen::io::npz_array_names(as_bytes(bytes), name))
                CHECK(decodes(bytes, name + ":" + array));
        }
    }
    CHECK(seeds >= 30);
}

TEST_CASE("inputs that once crashed a fuzzer are handled", "[io][robustness][fuzz]") {
    // tests/io/fuzz_regressions/<reader>/<input>: decoded under the reader's extension; each must
    // give an image or a proxgen::Error naming it (the README there says what each one broke).
    // A reader without regressions has no folder; the root itself must exist and hold inputs, or
    // a moved or missing corpus would pass on nothing.
    const fs::path root = source_path("tests/io/fuzz_regressions");
    REQUIRE(fs::is_directory(root));
    const std::vector<std::pair<std::string, std::string>> extension = {
        {"npy", ".npy"}, {"npz", ".npz"}, {"png", ".png"}, {"jpeg", ".jpg"}, {"pfm", ".pfm"}, {"tiff", ".tif"}};
    int inputs = 0;
    for (const auto& [reader, ext] : extension) {
        if (!fs::exists(root / reader)) continue;
        for (const auto& entry : fs::directory_iterator(root / reader)) {
            ++inputs;
            INFO(entry.path().string());
            decodes(read_bytes(entry.path().string()), entry.path().filename().string() + ext);
        }
    }
    // every folder under the root is a reader's (a misspelt one would be skipped silently)
    for (const auto& entry : fs::directory_iterator(root)) {
        if (!entry.is_directory()) continue;
        const std::string name = entry.path().filename().string();
        INFO(name);
        CHECK(std::any_of(extension.begin(), extension.end(), [&](const auto& e) { return e.first == name; }));
    }
    CHECK(inputs >= 1);  // png/itxt_claims_1gb at least
}

TEST_CASE("readers run concurrently: 4 threads decoding every format agree with one thread", "[io][robustness]") {
    // Each reader keeps its state per call (libtiff's error handlers per handle, libpng/libjpeg
    // structs on the stack), so concurrent decodes neither mix messages nor images.
    const auto files = valid_files();
    std::vector<Image> expected;
    for (const auto& [name, bytes] : files) expected.push_back(proxgen::decode_image(as_bytes(bytes), name));
    std::vector<int> mismatches(4, 0), errors(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 20; ++round)
                for (std::size_t i = 0; i < files.size(); ++i) {
                    const auto& [name, bytes] = files[(i + std::size_t(t)) % files.size()];
                    try {
                        if (!same_bits(proxgen::decode_image(as_bytes(bytes), name), expected[(i + std::size_t(t)) % files.size()]))
                            ++mismatches[std::size_t(t)];
                        proxgen::decode_image(as_bytes(bytes.substr(0, bytes.size() / 2)), name);
                    } catch (const proxgen::Error& e) {
                        if (std::string(e.what()).find(name) == std::string::npos) ++errors[std::size_t(t)];
                    }
                }
        });
    for (auto& th : threads) th.join();
    CHECK(mismatches == std::vector<int>(4, 0));
    CHECK(errors == std::vector<int>(4, 0));
}
