// .npz reader and writer: just enough of the zip format (PKWARE APPNOTE 6.3) for NumPy's archives.
//   [local header, member data]* central directory, [zip64 end record, zip64 locator,] end record
// The reader trusts only the central directory for sizes (a local header may defer them to a
// data descriptor) and checks every member's CRC-32, so corruption is named, not decoded.
#include "proxgen/io/npz.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

#include <zlib.h>

#include "file_bytes.hpp"
#include "proxgen/error.hpp"
#include "proxgen/io/npy.hpp"

namespace proxgen::io {
namespace {

constexpr std::uint32_t local_signature = 0x04034b50, central_signature = 0x02014b50,
                        end_signature = 0x06054b50, zip64_end_signature = 0x06064b50,
                        zip64_locator_signature = 0x07064b50;
// Deflate cannot expand by more than 1032:1 (a 258-byte match per 2 bits, RFC 1951): a larger
// claimed size is a corrupt or hostile header, refused before anything is allocated.
constexpr std::uint64_t max_deflate_ratio = 1032;

std::uint64_t le(Bytes b, std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = v << 8 | b[at + std::size_t(i)];
    return v;
}

std::string array_name(const std::string& member) {
    return member.ends_with(".npy") ? member.substr(0, member.size() - 4) : member;
}

struct Member {
    std::string name;
    std::uint16_t flags = 0, method = 0;
    std::uint32_t crc = 0;
    std::uint64_t compressed = 0, uncompressed = 0, local_offset = 0;
};

class ZipReader {
public:
    ZipReader(Bytes bytes, const std::string& name) : b_(bytes), name_(name) {}

    std::vector<Member> members() {
        const std::size_t end = find_end_record();
        std::uint64_t entries = le(b_, end + 10, 2), cd_size = le(b_, end + 12, 4), cd_offset = le(b_, end + 16, 4);
        if (entries == 0xffff || cd_size == 0xffffffff || cd_offset == 0xffffffff) {
            // Zip64: the locator sits just before the end record and points at the zip64 end record.
            if (end < 20 || le(b_, end - 20, 4) != zip64_locator_signature) corrupt("zip64 locator missing");
            const std::uint64_t at = le(b_, end - 20 + 8, 8);
            if (at > b_.size() || b_.size() - at < 56 || le(b_, std::size_t(at), 4) != zip64_end_signature)
                corrupt("bad zip64 end record");
            entries = le(b_, std::size_t(at) + 32, 8);
            cd_size = le(b_, std::size_t(at) + 40, 8);
            cd_offset = le(b_, std::size_t(at) + 48, 8);
        }
        if (cd_offset > b_.size() || cd_size > b_.size() - cd_offset) corrupt("central directory outside the file");
        if (entries > cd_size / 46) corrupt("more entries than the central directory holds");
        std::vector<Member> list;
        std::size_t pos = std::size_t(cd_offset);
        const std::size_t cd_end = std::size_t(cd_offset + cd_size);
        for (std::uint64_t i = 0; i < entries; ++i) {
            if (cd_end - pos < 46 || le(b_, pos, 4) != central_signature) corrupt("bad central directory entry");
            Member m;
            m.flags = std::uint16_t(le(b_, pos + 8, 2));
            m.method = std::uint16_t(le(b_, pos + 10, 2));
            m.crc = std::uint32_t(le(b_, pos + 16, 4));
            m.compressed = le(b_, pos + 20, 4);
            m.uncompressed = le(b_, pos + 24, 4);
            m.local_offset = le(b_, pos + 42, 4);
            const std::size_t name_len = le(b_, pos + 28, 2), extra_len = le(b_, pos + 30, 2),
                              comment_len = le(b_, pos + 32, 2);
            if (cd_end - pos - 46 < name_len + extra_len + comment_len) corrupt("central directory entry cut short");
            m.name.assign(reinterpret_cast<const char*>(b_.data()) + pos + 46, name_len);
            read_zip64_extra(m, pos + 46 + name_len, extra_len);
            list.push_back(std::move(m));
            pos += 46 + name_len + extra_len + comment_len;
        }
        return list;
    }

    // The member's bytes, inflated if needed, CRC-checked.
    std::vector<unsigned char> contents(const Member& m) {
        const std::string where = name_ + ":" + array_name(m.name);
        if (m.flags & 1) fail("'{}': encrypted .npz members are not supported", where);
        if (m.method != 0 && m.method != 8)
            fail("'{}': unsupported zip compression method {} (NumPy writes 0, stored, or 8, deflate)", where,
                 m.method);
        if (m.local_offset > b_.size() || b_.size() - m.local_offset < 30 ||
            le(b_, std::size_t(m.local_offset), 4) != local_signature)
            corrupt("bad local header of member '" + m.name + "'");
        const std::size_t local = std::size_t(m.local_offset);
        const std::uint64_t data = local + 30 + le(b_, local + 26, 2) + le(b_, local + 28, 2);
        if (data > b_.size() || m.compressed > b_.size() - data) corrupt("member '" + m.name + "' cut short");
        const Bytes packed = b_.subspan(std::size_t(data), std::size_t(m.compressed));

        std::vector<unsigned char> out;
        if (m.method == 0) {
            if (m.compressed != m.uncompressed) corrupt("stored member '" + m.name + "' has two different sizes");
            out.assign(packed.begin(), packed.end());
        } else {
            if (m.uncompressed > m.compressed * max_deflate_ratio + 1024)
                corrupt("member '" + m.name + "' claims more data than its deflate stream can hold");
            out.resize(std::size_t(m.uncompressed));
            inflate_all(packed, out, where);
        }
        uLong crc = crc32_z(0, nullptr, 0);
        crc = crc32_z(crc, out.data(), out.size());
        if (crc != m.crc) fail("'{}': the .npz member is corrupt (CRC-32 mismatch)", where);
        return out;
    }

    [[noreturn]] void corrupt(const std::string& what) const {
        fail("'{}': not a valid .npz (zip) archive: {}", name_, what);
    }

private:
    std::size_t find_end_record() const {
        // The end record (22 bytes) is followed only by a comment of up to 65535 bytes.
        if (b_.size() < 22) corrupt("too short");
        const std::size_t lowest = b_.size() >= 22 + 0xffff ? b_.size() - 22 - 0xffff : 0;
        for (std::size_t at = b_.size() - 22;; --at) {
            if (le(b_, at, 4) == end_signature && at + 22 + le(b_, at + 20, 2) == b_.size()) return at;
            if (at == lowest) break;
        }
        corrupt("no end-of-central-directory record");
    }

    // Sizes and offset that overflow 32 bits are 0xffffffff in the entry and follow, in this
    // order, in the zip64 extra field (id 1).
    void read_zip64_extra(Member& m, std::size_t at, std::size_t len) const {
        const std::size_t end = at + len;
        while (end - at >= 4) {
            const std::size_t id = le(b_, at, 2), size = le(b_, at + 2, 2);
            if (end - at - 4 < size) corrupt("extra field cut short");
            if (id == 1) {
                std::size_t p = at + 4;
                for (std::uint64_t* field : {&m.uncompressed, &m.compressed, &m.local_offset}) {
                    if (*field != 0xffffffff) continue;
                    if (at + 4 + size - p < 8) corrupt("zip64 extra field cut short");
                    *field = le(b_, p, 8);
                    p += 8;
                }
            }
            at += 4 + size;
        }
    }

    static void inflate_all(Bytes packed, std::vector<unsigned char>& out, const std::string& where) {
        z_stream z{};
        if (inflateInit2(&z, -15) != Z_OK) fail("'{}': zlib could not start inflating", where);  // raw deflate
        std::size_t in_done = 0, out_done = 0;
        int ret = Z_OK;
        while (ret == Z_OK) {
            // zlib counts in uInt: feed at most UINT_MAX bytes at a time.
            if (z.avail_in == 0 && in_done < packed.size()) {
                const std::size_t n = std::min<std::size_t>(packed.size() - in_done, UINT_MAX);
                z.next_in = const_cast<unsigned char*>(packed.data() + in_done);
                z.avail_in = uInt(n);
                in_done += n;
            }
            if (z.avail_out == 0 && out_done < out.size()) {
                const std::size_t n = std::min<std::size_t>(out.size() - out_done, UINT_MAX);
                z.next_out = out.data() + out_done;
                z.avail_out = uInt(n);
                out_done += n;
            }
            ret = inflate(&z, Z_NO_FLUSH);  // Z_OK means progress; Z_BUF_ERROR means none is possible
        }
        const bool complete = ret == Z_STREAM_END && z.total_out == out.size();
        const std::string reason = z.msg                                   ? z.msg
                                   : ret == Z_STREAM_END                   ? "shorter than its declared size"
                                   : z.avail_out == 0 && !out.empty()      ? "longer than its declared size"
                                                                           : "cut short";
        inflateEnd(&z);
        if (!complete) fail("'{}': corrupt deflate data in the .npz ({})", where, reason);
    }

    Bytes b_;
    const std::string& name_;
};

void put_le(std::vector<unsigned char>& out, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

}  // namespace

std::vector<std::string> npz_array_names(Bytes bytes, const std::string& name) {
    std::vector<std::string> names;
    for (const Member& m : ZipReader(bytes, name).members()) names.push_back(array_name(m.name));
    return names;
}

Image read_npz(Bytes bytes, const std::string& name, const std::string& array, const ReadLimits& limits) {
    ZipReader zip(bytes, name);
    const std::vector<Member> members = zip.members();
    if (members.empty()) fail("'{}': the .npz archive holds no arrays", name);
    const Member* chosen = nullptr;
    if (array.empty()) {
        if (members.size() == 1) chosen = &members[0];
    } else {
        for (const Member& m : members)
            if (m.name == array || array_name(m.name) == array) {
                chosen = &m;
                break;
            }
    }
    if (!chosen) {
        std::string names;
        for (const Member& m : members) names += (names.empty() ? "'" : ", '") + array_name(m.name) + "'";
        if (array.empty())
            fail("'{}': the .npz archive holds {} arrays ({}); name one as '{}:NAME'", name, members.size(), names,
                 name);
        fail("'{}': the .npz archive has no array '{}' (it holds {})", name, array, names);
    }
    const std::vector<unsigned char> npy = zip.contents(*chosen);
    return read_npy(Bytes(npy), name + ":" + array_name(chosen->name), limits);
}

Image read_npz(const std::string& path, const std::string& array) {
    const std::vector<unsigned char> bytes = read_all(path);
    return read_npz(Bytes(bytes), path, array);
}

void write_npz(const std::string& path, const std::string& array, const Image& image) {
    const std::string member = (array.empty() ? std::string("arr_0") : array_name(array)) + ".npy";
    const std::vector<unsigned char> npy = encode_npy(image, path);
    if (npy.size() >= 0xffffffffu) fail("cannot save '{}': arrays of 4 GiB or more need .npy, not .npz", path);

    z_stream z{};
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        fail("cannot save '{}': zlib could not start deflating", path);
    std::vector<unsigned char> packed(deflateBound(&z, uLong(npy.size())));
    z.next_in = const_cast<unsigned char*>(npy.data());
    z.avail_in = uInt(npy.size());
    z.next_out = packed.data();
    z.avail_out = uInt(packed.size());
    const int ret = deflate(&z, Z_FINISH);
    packed.resize(z.total_out);
    deflateEnd(&z);
    if (ret != Z_STREAM_END) fail("cannot save '{}': zlib deflate failed", path);
    const std::uint32_t crc = std::uint32_t(crc32_z(crc32_z(0, nullptr, 0), npy.data(), npy.size()));

    // One member: local header, data, central directory entry, end record. Time/date: 1980-01-01.
    std::vector<unsigned char> out;
    auto common = [&](std::vector<unsigned char>& o) {
        put_le(o, 20, 2);  // version needed: 2.0 (deflate)
        put_le(o, 0, 2);   // flags
        put_le(o, 8, 2);   // deflate
        put_le(o, 0, 2);   // time
        put_le(o, 0x21, 2);  // date
        put_le(o, crc, 4);
        put_le(o, packed.size(), 4);
        put_le(o, npy.size(), 4);
        put_le(o, member.size(), 2);
        put_le(o, 0, 2);  // extra length
    };
    put_le(out, local_signature, 4);
    common(out);
    out.insert(out.end(), member.begin(), member.end());
    out.insert(out.end(), packed.begin(), packed.end());
    const std::size_t cd_offset = out.size();
    put_le(out, central_signature, 4);
    put_le(out, 20, 2);  // made by: 2.0, MS-DOS attributes
    common(out);
    put_le(out, 0, 2);  // comment length
    put_le(out, 0, 2);  // disk
    put_le(out, 0, 2);  // internal attributes
    put_le(out, 0, 4);  // external attributes
    put_le(out, 0, 4);  // local header offset
    out.insert(out.end(), member.begin(), member.end());
    const std::size_t cd_size = out.size() - cd_offset;
    if (cd_offset >= 0xffffffffu) fail("cannot save '{}': the compressed array is too large for .npz", path);
    put_le(out, end_signature, 4);
    put_le(out, 0, 4);  // disk numbers
    put_le(out, 1, 2);
    put_le(out, 1, 2);
    put_le(out, cd_size, 4);
    put_le(out, cd_offset, 4);
    put_le(out, 0, 2);  // comment length
    write_all(path, out);
}

}  // namespace proxgen::io
