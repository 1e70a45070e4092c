// tests/kit/test_npy.cpp — .npy files round-trip in the kit's three dtypes, and a damaged or
// forged file is refused with a message instead of being read out of bounds.
#include "kit/npy.hpp"

#include <gmock/gmock.h>
#include <xtensor/xnpy.hpp>

#include <filesystem>

namespace {

using attn::kit::any_tensor;
using attn::kit::npy_error;
using attn::kit::parse_npy;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const xt::xarray<float> values = {{1.5f, -2.0f}, {0.25f, 8.0f}};

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
                ThrowsMessage<npy_error>(HasSubstr("r.npy is not a readable .npy file: its data")));
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

}  // namespace
