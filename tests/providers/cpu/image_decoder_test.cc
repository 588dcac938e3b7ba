// ImageDecoder: BMP/PNM are built by hand here, PNG through libpng's writer;
// JPEG, WebP, TIFF and JPEG 2000 are covered by the conformance data.
#include <png.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "support/op_test.h"

namespace tessera::test {
namespace {

Tensor Bytes(const std::vector<uint8_t>& b) { return T_<uint8_t>(b, {static_cast<int64_t>(b.size())}); }
Tensor Bytes(const std::string& s) { return Bytes(std::vector<uint8_t>(s.begin(), s.end())); }

void Put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void Put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v);
  b[at + 1] = static_cast<uint8_t>(v >> 8);
}

// A BMP with a 40-byte info header; `rows` holds the raw (padded) pixel rows
// in file order.
std::vector<uint8_t> Bmp(int32_t w, int32_t h, uint16_t bpp, const std::vector<uint8_t>& palette,
                         const std::vector<uint8_t>& rows) {
  const uint32_t offset = 54 + static_cast<uint32_t>(palette.size());
  std::vector<uint8_t> b(offset, 0);
  b[0] = 'B';
  b[1] = 'M';
  Put32(b, 2, offset + static_cast<uint32_t>(rows.size()));
  Put32(b, 10, offset);
  Put32(b, 14, 40);
  Put32(b, 18, static_cast<uint32_t>(w));
  Put32(b, 22, static_cast<uint32_t>(h));
  Put16(b, 26, 1);
  Put16(b, 28, bpp);
  Put32(b, 46, static_cast<uint32_t>(palette.size() / 4));
  std::copy(palette.begin(), palette.end(), b.begin() + 54);  // memcpy(nullptr, 0) is UB
  b.insert(b.end(), rows.begin(), rows.end());
  return b;
}

// 2x2 image, top row red/green, bottom row blue/white, as 24-bit bottom-up.
std::vector<uint8_t> Bmp24() {
  return Bmp(2, 2, 24, {},
             {255, 0, 0, 255, 255, 255, 0, 0,  // bottom row (BGR): blue, white, pad
              0, 0, 255, 0, 255, 0, 0, 0});    // top row: red, green, pad
}
const std::vector<uint8_t> kRgb2x2 = {255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255};

TEST(ImageDecoderTest, Bmp24BottomUp) {
  OpTest("ImageDecoder", 20)
      .Input("data", Bytes(Bmp24()))
      .Output("image", T_<uint8_t>(kRgb2x2, {2, 2, 3}))
      .Run();
}

TEST(ImageDecoderTest, Bmp24TopDownAsBgr) {
  std::vector<uint8_t> rows = {0, 0, 255, 0, 255, 0, 0, 0, 255, 0, 0, 255, 255, 255, 0, 0};
  OpTest("ImageDecoder", 20)
      .Attr("pixel_format", std::string("BGR"))
      .Input("data", Bytes(Bmp(2, -2, 24, {}, rows)))
      .Output("image", T_<uint8_t>({0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255}, {2, 2, 3}))
      .Run();
}

TEST(ImageDecoderTest, Bmp8BitPaletteGrayscale) {
  // palette: 0 = black, 1 = white (BGRA entries); 1x3 image 1,0,1 -> L = 255, 0, 255
  std::vector<uint8_t> palette = {0, 0, 0, 0, 255, 255, 255, 0};
  OpTest("ImageDecoder", 20)
      .Attr("pixel_format", std::string("Grayscale"))
      .Input("data", Bytes(Bmp(3, 1, 8, palette, {1, 0, 1, 0})))
      .Output("image", T_<uint8_t>({255, 0, 255}, {1, 3, 1}))
      .Run();
}

TEST(ImageDecoderTest, GrayscaleUsesRoundedLuma) {
  // L = (R*19595 + G*38470 + B*7471 + 0x8000) >> 16: red 76, green 150, blue 29, white 255
  OpTest("ImageDecoder", 20)
      .Attr("pixel_format", std::string("Grayscale"))
      .Input("data", Bytes(Bmp24()))
      .Output("image", T_<uint8_t>({76, 150, 29, 255}, {2, 2, 1}))
      .Run();
}

TEST(ImageDecoderTest, PnmBinaryAsciiAndScaled) {
  std::string p6 = "P6\n# comment\n2 1\n255\n";
  p6 += std::string("\x01\x02\x03\xFA\xFB\xFC", 6);
  OpTest("ImageDecoder", 20)
      .Input("data", Bytes(p6))
      .Output("image", T_<uint8_t>({1, 2, 3, 250, 251, 252}, {1, 2, 3}))
      .Run();
  OpTest("ImageDecoder", 20)
      .Input("data", Bytes(std::string("P3 1 1 15 15 0 5\n")))
      .Output("image", T_<uint8_t>({255, 0, 85}, {1, 1, 3}))
      .Run();
  OpTest("ImageDecoder", 20)
      .Attr("pixel_format", std::string("Grayscale"))
      .Input("data", Bytes(std::string("P5 2 1 255\n\x10\x20", 13)))
      .Output("image", T_<uint8_t>({16, 32}, {1, 2, 1}))
      .Run();
}

TEST(ImageDecoderTest, PngAlphaIsDropped) {
  png_image img;
  std::memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  img.width = 2;
  img.height = 1;
  img.format = PNG_FORMAT_RGBA;
  const uint8_t px[] = {10, 20, 30, 0, 40, 50, 60, 128};
  png_alloc_size_t size = 0;
  ASSERT_TRUE(png_image_write_to_memory(&img, nullptr, &size, 0, px, 0, nullptr));
  std::vector<uint8_t> buf(size);
  ASSERT_TRUE(png_image_write_to_memory(&img, buf.data(), &size, 0, px, 0, nullptr));
  buf.resize(size);
  OpTest("ImageDecoder", 20)
      .Input("data", Bytes(buf))
      .Output("image", T_<uint8_t>({10, 20, 30, 40, 50, 60}, {1, 2, 3}))
      .Run();
}

TEST(ImageDecoderTest, UnknownFormatFails) {
  OpTest("ImageDecoder", 20)
      .Input("data", Bytes(std::string("hello world")))
      .Output("image", T_<uint8_t>({0}, {1, 1, 1}))
      .ExpectFailure("unrecognized image format");
}

TEST(ImageDecoderTest, EmptyStreamFails) {
  OpTest("ImageDecoder", 20)
      .Input("data", T_<uint8_t>({}, {0}))
      .Output("image", T_<uint8_t>({0}, {1, 1, 1}))
      .ExpectFailure("unrecognized image format");
}

TEST(ImageDecoderTest, TruncatedBmpFails) {
  std::vector<uint8_t> b = Bmp24();
  b.resize(b.size() - 4);
  OpTest("ImageDecoder", 20)
      .Input("data", Bytes(b))
      .Output("image", T_<uint8_t>({0}, {1, 1, 1}))
      .ExpectFailure("truncated");
}

TEST(ImageDecoderTest, CorruptCodecStreamsFail) {
  for (std::string s : {std::string("\xFF\xD8\xFF\xE0garbage", 11), std::string("\x89PNG\r\n\x1A\nxx", 10),
                        std::string("II*\0\x08\0\0\0", 8), std::string("RIFF\0\0\0\0WEBPVP8 ", 16),
                        std::string("\0\0\0\x0CjP  \r\n\x87\n\0\0", 14)}) {
    OpTest("ImageDecoder", 20)
        .Input("data", Bytes(s))
        .Output("image", T_<uint8_t>({0}, {1, 1, 1}))
        .ExpectFailure("invalid");
  }
}

TEST(ImageDecoderTest, NonUint8InputFails) {
  OpTest("ImageDecoder", 20)
      .Input("data", T_<int32_t>({1, 2}, {2}))
      .Output("image", T_<uint8_t>({0}, {1, 1, 1}))
      .ExpectFailure("uint8");
}

TEST(ImageDecoderTest, BadPixelFormatFails) {
  OpTest("ImageDecoder", 20)
      .Attr("pixel_format", std::string("RGBA"))
      .Input("data", Bytes(Bmp24()))
      .Output("image", T_<uint8_t>({0}, {1, 1, 1}))
      .ExpectFailure("pixel_format");
}

}  // namespace
}  // namespace tessera::test
