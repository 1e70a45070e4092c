// tests/kit/test_npy.cpp — .npy files round-trip in the kit's three dtypes, and a damaged or
// forged file, or something that is not a regular file, is refused with a message naming the
// problem instead of being read out of bounds (or waited on).
#include "kit/npy.hpp"

#include <gmock/gmock.h>
#include <xtensor/xnpy.hpp>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>

namespace {

namespace fs = std::filesystem;
using attn::kit::any_tensor;
using attn::kit::npy_error;
using attn::kit::parse_npy;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const xt::xarray<float> values = {{1.5f, -2.0f}, {0.25f, 8.0f}};

// A version 1.0 .npy file with this header text and data, its length field set to `length`.
std::string npy_file(const std::string& header, const std::string& data = "",
                     std::size_t length = std::string::npos) {
    if (length == std::string::npos) length = header.size();
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(length & 0xff);
    bytes += static_cast<char>(length >> 8);
    return bytes + header + data;
}

// The message parse_npy refuses `bytes` with, or "" if it reads them.
std::string refusal(const std::string& bytes) {
    try {
        parse_npy(bytes, "r.npy");
    } catch (const npy_error& error) {
        return error.what();
    }
    return "";
}

std::string header_of_shape(const std::string& shape, const std::string& descr = "<f4") {
    return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }\n";
}

// A fresh folder per test, removed after it.
class NpyFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        folder_ =
            fs::current_path() /
            ("npy-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(folder_);
        fs::create_directories(folder_);
    }
    void TearDown() override { fs::remove_all(folder_); }

    fs::path folder_;
};

TEST(NpyTest, RoundTripsEveryDtype) {
    const auto folder = std::filesystem::current_path() / "npy-round-trip";
    for (const any_tensor& tensor :
         {any_tensor(values), any_tensor(xt::xarray<std::int64_t>{3, -4, 5}),
          any_tensor(xt::xarray<bool>{true, false}), any_tensor(xt::xarray<float>(7.0f)),
          any_tensor(xt::xarray<float>::from_shape({0, 3}))}) {
        attn::kit::write_npy(folder / "t.npy", tensor);
        EXPECT_EQ(attn::kit::read_npy(folder / "t.npy"), tensor);
    }
    std::filesystem::remove_all(folder);
}

TEST(NpyTest, RefusesAFileThatIsCutShort) {
    const std::string bytes = xt::dump_npy(values);
    EXPECT_THAT([&] { parse_npy(bytes.substr(0, bytes.size() - 3), "r.npy"); },
                ThrowsMessage<npy_error>(HasSubstr(
                    "r.npy is not a readable .npy file: its data is 3 bytes short (its header "
                    "promises 4 values of 4 bytes)")));
}

TEST(NpyTest, RefusesBytesAfterTheData) {
    EXPECT_THAT(refusal(xt::dump_npy(values) + "ok"),
                HasSubstr("r.npy is not a readable .npy file: 2 bytes follow its data"));
}

TEST(NpyTest, RefusesAHeaderOfLengthZero) {
    EXPECT_EQ(refusal(npy_file("")), "r.npy is not a readable .npy file: its header length is 0");
    EXPECT_EQ(refusal(npy_file("", "{}\n")),
              "r.npy is not a readable .npy file: its header length is 0");
}

TEST(NpyTest, RefusesAHeaderPastTheEndOfTheFile) {
    EXPECT_THAT(refusal(npy_file(header_of_shape("(1,)"), "", 400)),
                HasSubstr("its header of 400 bytes runs past the end of the file"));
    EXPECT_THAT(refusal(std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{", 13)),
                HasSubstr("runs past the end of the file"));
    EXPECT_THAT(refusal(std::string("\x93NUMPY\x01", 7)), HasSubstr("its header is cut short"));
    EXPECT_THAT(refusal(std::string("\x93NUMPY\x03\x00\x01\x00\x01\x00{", 11)),
                HasSubstr("format version 3"));
}

TEST(NpyTest, RefusesAHeaderThatIsNotADict) {
    for (const std::string header :
         {" \n", "\n", "[1, 2]\n", "{'descr': '<f4'\n",
          "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }x\n", "{'descr' '<f4'}\n"}) {
        SCOPED_TRACE(header);
        EXPECT_THAT(refusal(npy_file(header)),
                    HasSubstr("r.npy is not a readable .npy file: its header"));
    }
    EXPECT_THAT(refusal(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': }\n")),
                HasSubstr("its shape is not a tuple"));
    EXPECT_THAT(refusal(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (3)}\n")),
                HasSubstr("its shape is not a tuple"));
    EXPECT_THAT(refusal(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}\n")),
                HasSubstr("its shape holds something other than integers"));
    EXPECT_THAT(refusal(npy_file("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}\n")),
                HasSubstr("its fortran_order is not True or False"));
    EXPECT_THAT(refusal(npy_file("{'descr': 4, 'fortran_order': False, 'shape': (1,)}\n")),
                HasSubstr("its descr is not a string"));
}

TEST(NpyTest, RefusesAHeaderWithoutItsKeys) {
    EXPECT_THAT(refusal(npy_file("{'descr': '<f4', 'fortran_order': False}\n")),
                HasSubstr("its header lacks the key shape"));
    EXPECT_THAT(refusal(npy_file("{}\n")), HasSubstr("its header lacks the key descr"));
    EXPECT_THAT(
        refusal(npy_file("{'descr': '<f4', 'shape': (1,), 'fortran_order': False, 'x': 1}\n")),
        HasSubstr("its header has an unknown key x"));
    EXPECT_THAT(refusal(npy_file("{'shape': (1,), 'shape': (1,)}\n")),
                HasSubstr("its header has the key shape twice"));
}

TEST(NpyTest, ReadsKeysInAnyOrderAndFormatVersionTwo) {
    // NumPy's own reader accepts both; what a result file holds decides, not its layout.
    const std::string data("\x00\x00\x80\x3f", 4);  // 1.0f
    EXPECT_EQ(
        parse_npy(npy_file("{\"shape\": (1,), \"fortran_order\": False, \"descr\": \"<f4\"}", data),
                  "r.npy"),
        any_tensor(xt::xarray<float>{1.0f}));
    const std::string header = header_of_shape("()");
    std::string version_two = std::string("\x93NUMPY\x02\x00", 8);
    version_two += static_cast<char>(header.size());
    version_two += std::string(3, '\0');
    EXPECT_EQ(parse_npy(version_two + header + data, "r.npy"), any_tensor(xt::xarray<float>(1.0f)));
}

TEST(NpyTest, RefusesAHugeDescrWithoutOverflowingTheStack) {
    // xtensor's parser runs std::regex over it: a 2 MB descr overflowed its stack (SIGSEGV).
    const std::string header = header_of_shape("(1,)", "<f" + std::string(2000000, '4'));
    std::string bytes = std::string("\x93NUMPY\x02\x00", 8);
    for (int i = 0; i < 4; ++i) bytes += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    EXPECT_THAT(refusal(bytes + header + "abcd"), HasSubstr("dtype <f44444444444444...;"));
}

TEST(NpyTest, RefusesAShapeWhoseCountOverflows) {
    EXPECT_THAT(refusal(npy_file(header_of_shape("(4294967296, 4294967296)"))),
                HasSubstr("its shape's element count overflows size_t"));
    // An empty array too: its other extents still size xtensor's strides.
    EXPECT_THAT(refusal(npy_file(header_of_shape("(0, 4294967296, 4294967296)"))),
                HasSubstr("its shape's element count overflows size_t"));
    EXPECT_THAT(refusal(npy_file(header_of_shape("(4611686018427387904,)"))),
                HasSubstr("its shape's byte count overflows size_t"));
    EXPECT_THAT(refusal(npy_file(header_of_shape("(99999999999999999999999,)"))),
                HasSubstr("its shape has an extent that overflows size_t"));
    EXPECT_THAT(refusal(npy_file(header_of_shape("(1000000000,)"))),
                HasSubstr("its shape needs 4000000000 bytes, more than the"));
    std::string dimensions = "(";
    for (int i = 0; i < 65; ++i) dimensions += "1, ";
    EXPECT_THAT(refusal(npy_file(header_of_shape(dimensions + ")"))),
                HasSubstr("more than 64 dimensions"));
}

TEST(NpyTest, RefusesBoolBytesOtherThanZeroAndOne) {
    const std::string header = header_of_shape("(3,)", "|b1");
    EXPECT_EQ(parse_npy(npy_file(header, std::string("\x01\x00\x01", 3)), "r.npy"),
              any_tensor(xt::xarray<bool>{true, false, true}));
    EXPECT_THAT(refusal(npy_file(header, std::string("\x01\x02\x00", 3))),
                HasSubstr("its bool value 1 is the byte 2, not 0 or 1"));
    EXPECT_THAT(refusal(npy_file(header, std::string("\x00\x00\xff", 3))),
                HasSubstr("its bool value 2 is the byte 255, not 0 or 1"));
}

TEST(NpyTest, RefusesAHeaderThatPromisesMoreThanTheFileHolds) {
    std::string bytes = xt::dump_npy(values);
    const auto at = bytes.find("(2, 2)");
    bytes.replace(at, 6, "(9999999999, 99999999999)");
    EXPECT_THROW(parse_npy(bytes, "r.npy"), npy_error);
}

TEST(NpyTest, RefusesOtherDtypesAndFortranOrder) {
    EXPECT_THAT([] { parse_npy(xt::dump_npy(xt::xarray<double>{1.0}), "r.npy"); },
                ThrowsMessage<npy_error>(HasSubstr("dtype <f8")));
    for (const std::string descr : {">f4", "<i4", "|u1", "<b1", "<U3"}) {
        EXPECT_THAT(refusal(npy_file(header_of_shape("(1,)", descr), "abcdefgh")),
                    HasSubstr("dtype " + descr + "; the kit reads"));
    }
    // The file's text is quoted printable and short.
    EXPECT_THAT(refusal(npy_file(header_of_shape("(1,)", "\x1b[2J" + std::string(40, 'f')))),
                HasSubstr("dtype ?[2Jffffffffffff...;"));
    const xt::xarray<float, xt::layout_type::column_major> fortran = values;
    EXPECT_THAT([&] { parse_npy(xt::dump_npy(fortran), "r.npy"); },
                ThrowsMessage<npy_error>(HasSubstr("Fortran order")));
}

TEST(NpyTest, RefusesSomethingElse) {
    EXPECT_THAT([] { parse_npy("100% tests passed", "r.npy"); },
                ThrowsMessage<npy_error>(HasSubstr("magic string")));
    std::string bytes = xt::dump_npy(values);
    bytes[8] = '\xff';  // header length beyond the file
    EXPECT_THAT([&] { parse_npy(bytes, "r.npy"); }, ThrowsMessage<npy_error>(HasSubstr("header")));
}

TEST_F(NpyFileTest, RefusesAFifoWithoutBlocking) {
    const auto fifo = folder_ / "r.npy";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_THAT([&] { attn::kit::read_npy(fifo); },
                ThrowsMessage<npy_error>(HasSubstr("r.npy is a FIFO, not a regular file")));
}

TEST_F(NpyFileTest, RefusesAFolder) {
    fs::create_directory(folder_ / "r.npy");
    EXPECT_THAT([&] { attn::kit::read_npy(folder_ / "r.npy"); },
                ThrowsMessage<npy_error>(HasSubstr("r.npy is a folder, not a regular file")));
}

TEST_F(NpyFileTest, RefusesASymbolicLink) {
    attn::kit::write_npy(folder_ / "real.npy", values);
    fs::create_symlink(folder_ / "real.npy", folder_ / "r.npy");
    EXPECT_THAT([&] { attn::kit::read_npy(folder_ / "r.npy"); },
                ThrowsMessage<npy_error>(HasSubstr("r.npy is a symbolic link")));
    EXPECT_EQ(attn::kit::read_npy(folder_ / "real.npy"), any_tensor(values));
}

TEST_F(NpyFileTest, RefusesAMissingFileAndOneLargerThanTheLimit) {
    EXPECT_THAT([&] { attn::kit::read_npy(folder_ / "r.npy"); },
                ThrowsMessage<npy_error>(HasSubstr("r.npy cannot be read: No such file")));
    std::ofstream(folder_ / "r.npy") << "x";
    fs::resize_file(folder_ / "r.npy", attn::kit::max_npy_bytes + 1);  // sparse: nothing written
    EXPECT_THAT([&] { attn::kit::read_file_bytes(folder_ / "r.npy"); },
                ThrowsMessage<npy_error>(HasSubstr("bytes the kit reads")));
    EXPECT_EQ(attn::kit::read_file_start(folder_ / "r.npy", 3), std::string("x\0\0", 3));
}

}  // namespace
