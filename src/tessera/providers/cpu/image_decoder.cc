// ImageDecoder (opset 20): decodes a JPEG, PNG, WebP, TIFF, JPEG 2000, BMP or
// PNM byte stream into an 8-bit [H, W, C] tensor in RGB, BGR or Grayscale
// order. JPEG/PNG/WebP/TIFF/JPEG 2000 go through the system codec libraries;
// BMP and PNM are parsed here. Every decoder first produces 8-bit RGB.
#include <algorithm>
#include <cctype>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <jpeglib.h>
#include <openjpeg.h>
#include <png.h>
#include <tiffio.h>
#include <webp/decode.h>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

// Refuse images whose decoded RGB buffer would exceed this many pixels.
constexpr uint64_t kMaxPixels = uint64_t{1} << 28;

struct RgbImage {
  int64_t height = 0, width = 0;
  std::vector<uint8_t> rgb;  // height * width * 3
};

// A decoder reports failure through this message (empty on success).
using Error = std::string;

bool SizeOk(uint64_t w, uint64_t h, Error* err) {
  if (w == 0 || h == 0) {
    *err = "image has zero width or height";
    return false;
  }
  if (w > kMaxPixels || h > kMaxPixels || w * h > kMaxPixels) {
    *err = "image of " + std::to_string(w) + "x" + std::to_string(h) + " pixels is too large";
    return false;
  }
  return true;
}

// ---- JPEG (libjpeg) ------------------------------------------------------------
struct JpegErrorMgr {
  jpeg_error_mgr pub;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void JpegErrorExit(j_common_ptr cinfo) {
  auto* mgr = reinterpret_cast<JpegErrorMgr*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, mgr->message);
  longjmp(mgr->jump, 1);
}
void JpegSilence(j_common_ptr, int) {}

// Plain C-style body: no C++ object is created or destroyed between setjmp
// and a possible longjmp except `img`, which lives in the caller.
bool DecodeJpeg(const uint8_t* data, size_t size, RgbImage* img, Error* err) {
  jpeg_decompress_struct cinfo;
  JpegErrorMgr jerr;
  std::memset(&cinfo, 0, sizeof cinfo);
  cinfo.err = jpeg_std_error(&jerr.pub);
  jerr.pub.error_exit = JpegErrorExit;
  jerr.pub.emit_message = JpegSilence;
  jerr.message[0] = 0;
  if (setjmp(jerr.jump)) {
    *err = std::string("invalid JPEG data: ") + jerr.message;
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    *err = "CMYK JPEG images are not supported";
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  if (!SizeOk(cinfo.output_width, cinfo.output_height, err) || cinfo.output_components != 3) {
    if (err->empty()) *err = "JPEG decoder produced an unexpected number of components";
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  img->width = cinfo.output_width;
  img->height = cinfo.output_height;
  img->rgb.resize(static_cast<size_t>(img->width * img->height * 3));
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = img->rgb.data() + static_cast<size_t>(cinfo.output_scanline) * img->width * 3;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

// ---- PNG (libpng) ----------------------------------------------------------------
struct PngSource {
  const uint8_t* data;
  size_t size;
  size_t pos;
  char message[256];
};

void PngRead(png_structp png, png_bytep out, png_size_t n) {
  auto* src = static_cast<PngSource*>(png_get_io_ptr(png));
  if (n > src->size - src->pos) png_error(png, "unexpected end of data");
  std::memcpy(out, src->data + src->pos, n);
  src->pos += n;
}
void PngError(png_structp png, png_const_charp msg) {
  auto* src = static_cast<PngSource*>(png_get_error_ptr(png));
  std::snprintf(src->message, sizeof src->message, "%s", msg);
  png_longjmp(png, 1);
}
void PngWarning(png_structp, png_const_charp) {}

bool DecodePng(const uint8_t* data, size_t size, RgbImage* img, Error* err) {
  PngSource src{data, size, 0, {0}};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, PngError, PngWarning);
  if (!png) {
    *err = "cannot create a PNG decoder";
    return false;
  }
  png_infop info = png_create_info_struct(png);
  std::vector<png_bytep>* rows = new std::vector<png_bytep>();  // freed on both paths
  if (!info || setjmp(png_jmpbuf(png))) {
    *err = std::string("invalid PNG data: ") + src.message;
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    delete rows;
    return false;
  }
  png_set_read_fn(png, &src, PngRead);
  png_read_info(png, info);
  png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
  if (!SizeOk(w, h, err)) {
    png_destroy_read_struct(&png, &info, nullptr);
    delete rows;
    return false;
  }
  int color = png_get_color_type(png, info);
  png_set_strip_16(png);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) {
    png_set_expand_gray_1_2_4_to_8(png);
    png_set_gray_to_rgb(png);
  }
  png_set_packing(png);
  png_set_strip_alpha(png);  // alpha is dropped, not composited
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_channels(png, info) != 3 || png_get_rowbytes(png, info) != static_cast<size_t>(w) * 3) {
    *err = "PNG decoder produced an unexpected pixel layout";
    png_destroy_read_struct(&png, &info, nullptr);
    delete rows;
    return false;
  }
  img->width = w;
  img->height = h;
  img->rgb.resize(static_cast<size_t>(w) * h * 3);
  rows->resize(h);
  for (png_uint_32 y = 0; y < h; ++y) (*rows)[y] = img->rgb.data() + static_cast<size_t>(y) * w * 3;
  png_read_image(png, rows->data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  delete rows;
  return true;
}

// ---- WebP (libwebp) -----------------------------------------------------------------
bool DecodeWebp(const uint8_t* data, size_t size, RgbImage* img, Error* err) {
  int w = 0, h = 0;
  if (!WebPGetInfo(data, size, &w, &h)) {
    *err = "invalid WebP data";
    return false;
  }
  if (!SizeOk(static_cast<uint64_t>(w), static_cast<uint64_t>(h), err)) return false;
  uint8_t* px = WebPDecodeRGB(data, size, &w, &h);
  if (!px) {
    *err = "invalid WebP data";
    return false;
  }
  img->width = w;
  img->height = h;
  img->rgb.assign(px, px + static_cast<size_t>(w) * h * 3);
  WebPFree(px);
  return true;
}

// ---- TIFF (libtiff) ------------------------------------------------------------------
struct TiffSource {
  const uint8_t* data;
  uint64_t size;
  uint64_t pos;
  std::string message;
};

tmsize_t TiffRead(thandle_t h, void* buf, tmsize_t n) {
  auto* s = static_cast<TiffSource*>(h);
  if (n < 0) return -1;
  uint64_t avail = s->pos < s->size ? s->size - s->pos : 0;
  uint64_t take = std::min<uint64_t>(avail, static_cast<uint64_t>(n));
  std::memcpy(buf, s->data + s->pos, take);
  s->pos += take;
  return static_cast<tmsize_t>(take);
}
tmsize_t TiffWrite(thandle_t, void*, tmsize_t) { return -1; }
toff_t TiffSeek(thandle_t h, toff_t off, int whence) {
  auto* s = static_cast<TiffSource*>(h);
  uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? s->pos : s->size;
  uint64_t target = base + off;
  if (target > s->size) return static_cast<toff_t>(-1);
  s->pos = target;
  return s->pos;
}
int TiffClose(thandle_t) { return 0; }
toff_t TiffSize(thandle_t h) { return static_cast<TiffSource*>(h)->size; }
int TiffMap(thandle_t, void**, toff_t*) { return 0; }
void TiffUnmap(thandle_t, void*, toff_t) {}
int TiffErrorHandler(TIFF*, void* user, const char*, const char* fmt, va_list ap) {
  auto* s = static_cast<TiffSource*>(user);
  char buf[256];
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  if (s->message.empty()) s->message = buf;
  return 1;
}
int TiffWarningHandler(TIFF*, void*, const char*, const char*, va_list) { return 1; }

bool DecodeTiff(const uint8_t* data, size_t size, RgbImage* img, Error* err) {
  TiffSource src{data, size, 0, {}};
  TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetErrorHandlerExtR(opts, TiffErrorHandler, &src);
  TIFFOpenOptionsSetWarningHandlerExtR(opts, TiffWarningHandler, &src);
  TIFF* tif = TIFFClientOpenExt("memory", "rm", &src, TiffRead, TiffWrite, TiffSeek, TiffClose, TiffSize, TiffMap,
                                TiffUnmap, opts);
  TIFFOpenOptionsFree(opts);
  if (!tif) {
    *err = "invalid TIFF data: " + src.message;
    return false;
  }
  uint32_t w = 0, h = 0;
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
  if (!SizeOk(w, h, err)) {
    TIFFClose(tif);
    return false;
  }
  std::vector<uint32_t> raster(static_cast<size_t>(w) * h);
  if (!TIFFReadRGBAImageOriented(tif, w, h, raster.data(), ORIENTATION_TOPLEFT, 0)) {
    *err = "cannot decode TIFF image: " + src.message;
    TIFFClose(tif);
    return false;
  }
  TIFFClose(tif);
  img->width = w;
  img->height = h;
  img->rgb.resize(static_cast<size_t>(w) * h * 3);
  for (size_t i = 0; i < raster.size(); ++i) {
    img->rgb[i * 3 + 0] = static_cast<uint8_t>(TIFFGetR(raster[i]));
    img->rgb[i * 3 + 1] = static_cast<uint8_t>(TIFFGetG(raster[i]));
    img->rgb[i * 3 + 2] = static_cast<uint8_t>(TIFFGetB(raster[i]));
  }
  return true;
}

// ---- JPEG 2000 (OpenJPEG) ---------------------------------------------------------------
struct J2kSource {
  const uint8_t* data;
  OPJ_UINT64 size;
  OPJ_UINT64 pos;
  std::string message;
};

OPJ_SIZE_T J2kRead(void* buf, OPJ_SIZE_T n, void* user) {
  auto* s = static_cast<J2kSource*>(user);
  if (s->pos >= s->size) return static_cast<OPJ_SIZE_T>(-1);
  OPJ_UINT64 take = std::min<OPJ_UINT64>(n, s->size - s->pos);
  std::memcpy(buf, s->data + s->pos, take);
  s->pos += take;
  return static_cast<OPJ_SIZE_T>(take);
}
OPJ_OFF_T J2kSkip(OPJ_OFF_T n, void* user) {
  auto* s = static_cast<J2kSource*>(user);
  if (n < 0) {
    OPJ_UINT64 back = static_cast<OPJ_UINT64>(-n);
    if (back > s->pos) return -1;
    s->pos -= back;
    return n;
  }
  OPJ_UINT64 fwd = std::min<OPJ_UINT64>(static_cast<OPJ_UINT64>(n), s->size - s->pos);
  s->pos += fwd;
  return static_cast<OPJ_OFF_T>(fwd);
}
OPJ_BOOL J2kSeek(OPJ_OFF_T off, void* user) {
  auto* s = static_cast<J2kSource*>(user);
  if (off < 0 || static_cast<OPJ_UINT64>(off) > s->size) return OPJ_FALSE;
  s->pos = static_cast<OPJ_UINT64>(off);
  return OPJ_TRUE;
}
void J2kError(const char* msg, void* user) {
  auto* s = static_cast<J2kSource*>(user);
  if (s->message.empty()) {
    s->message = msg;
    while (!s->message.empty() && s->message.back() == '\n') s->message.pop_back();
  }
}
void J2kQuiet(const char*, void*) {}

uint8_t J2kTo8Bit(OPJ_INT32 v, const opj_image_comp_t& c) {
  int64_t x = v;
  if (c.sgnd) x += int64_t{1} << (c.prec - 1);
  if (c.prec > 8) x >>= (c.prec - 8);
  else if (c.prec < 8) x = x * 255 / ((int64_t{1} << c.prec) - 1);
  return static_cast<uint8_t>(std::clamp<int64_t>(x, 0, 255));
}

bool DecodeJpeg2000(const uint8_t* data, size_t size, bool jp2, RgbImage* img, Error* err) {
  J2kSource src{data, size, 0, {}};
  opj_stream_t* stream = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
  opj_stream_set_user_data(stream, &src, nullptr);
  opj_stream_set_user_data_length(stream, src.size);
  opj_stream_set_read_function(stream, J2kRead);
  opj_stream_set_skip_function(stream, J2kSkip);
  opj_stream_set_seek_function(stream, J2kSeek);
  opj_codec_t* codec = opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  opj_set_error_handler(codec, J2kError, &src);
  opj_set_warning_handler(codec, J2kQuiet, &src);
  opj_set_info_handler(codec, J2kQuiet, &src);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  opj_image_t* image = nullptr;
  bool ok = opj_setup_decoder(codec, &params) && opj_read_header(stream, codec, &image) && image &&
            opj_decode(codec, stream, image) && opj_end_decompress(codec, stream);
  opj_stream_destroy(stream);
  opj_destroy_codec(codec);
  if (!ok) {
    *err = "invalid JPEG 2000 data: " + src.message;
    if (image) opj_image_destroy(image);
    return false;
  }
  const uint32_t nc = image->numcomps;
  if (nc == 0 || !image->comps[0].data) {
    *err = "JPEG 2000 image has no components";
    opj_image_destroy(image);
    return false;
  }
  const opj_image_comp_t& c0 = image->comps[0];
  const uint64_t w = c0.w, h = c0.h;
  if (!SizeOk(w, h, err)) {
    opj_image_destroy(image);
    return false;
  }
  const uint32_t used = nc >= 3 ? 3 : 1;  // gray, gray+alpha -> 1; RGB(A) -> 3
  for (uint32_t k = 0; k < used; ++k) {
    const opj_image_comp_t& c = image->comps[k];
    if (c.w != w || c.h != h || !c.data || c.prec < 1 || c.prec > 31) {
      *err = "JPEG 2000 images with subsampled or malformed components are not supported";
      opj_image_destroy(image);
      return false;
    }
  }
  img->width = static_cast<int64_t>(w);
  img->height = static_cast<int64_t>(h);
  img->rgb.resize(static_cast<size_t>(w * h * 3));
  for (uint64_t i = 0; i < w * h; ++i)
    for (uint32_t ch = 0; ch < 3; ++ch) {
      const opj_image_comp_t& c = image->comps[used == 3 ? ch : 0];
      img->rgb[i * 3 + ch] = J2kTo8Bit(c.data[i], c);
    }
  opj_image_destroy(image);
  return true;
}

// ---- BMP ------------------------------------------------------------------------------
uint32_t Le32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24); }
uint16_t Le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

// Scales the bits of `v` selected by `mask` to 0..255.
uint8_t MaskedChannel(uint32_t v, uint32_t mask) {
  if (mask == 0) return 0;
  int shift = 0;
  while (!((mask >> shift) & 1u)) ++shift;
  uint32_t bits = 0;
  while (shift + bits < 32 && ((mask >> (shift + bits)) & 1u)) ++bits;
  uint64_t maxv = (uint64_t{1} << bits) - 1;
  uint64_t x = (v & mask) >> shift;
  return static_cast<uint8_t>(x * 255 / maxv);
}

bool DecodeBmp(const uint8_t* data, size_t size, RgbImage* img, Error* err) {
  if (size < 26) {
    *err = "BMP data is truncated";
    return false;
  }
  const uint32_t pixel_offset = Le32(data + 10);
  const uint32_t header_size = Le32(data + 14);
  int64_t w, h;
  uint16_t bpp;
  uint32_t compression = 0, palette_count = 0;
  size_t palette_entry = 4;
  if (header_size == 12) {  // BITMAPCOREHEADER
    w = Le16(data + 18);
    h = static_cast<int16_t>(Le16(data + 20));
    bpp = Le16(data + 24);
    palette_entry = 3;
  } else if (header_size >= 40 && size >= 14 + 40) {
    w = static_cast<int32_t>(Le32(data + 18));
    h = static_cast<int32_t>(Le32(data + 22));
    bpp = Le16(data + 28);
    compression = Le32(data + 30);
    palette_count = Le32(data + 46);
  } else {
    *err = "unsupported BMP header size " + std::to_string(header_size);
    return false;
  }
  const bool top_down = h < 0;
  if (top_down) h = -h;
  if (w <= 0 || !SizeOk(static_cast<uint64_t>(w), static_cast<uint64_t>(h), err)) {
    if (err->empty()) *err = "BMP has a non-positive width";
    return false;
  }
  uint32_t masks[3] = {0, 0, 0};
  if (compression == 3 || compression == 6) {  // BI_BITFIELDS / BI_ALPHABITFIELDS
    const size_t at = 14 + 40;  // masks follow the 40-byte info header
    if (size < at + 12) {
      *err = "BMP data is truncated";
      return false;
    }
    for (int k = 0; k < 3; ++k) masks[k] = Le32(data + at + 4 * k);
    if (bpp != 16 && bpp != 32) {
      *err = "BMP bitfields need 16 or 32 bits per pixel";
      return false;
    }
  } else if (compression != 0) {
    *err = "compressed (RLE/JPEG/PNG) BMP images are not supported";
    return false;
  } else if (bpp == 16) {
    masks[0] = 0x7C00;
    masks[1] = 0x03E0;
    masks[2] = 0x001F;
  } else if (bpp == 32) {
    masks[0] = 0x00FF0000;
    masks[1] = 0x0000FF00;
    masks[2] = 0x000000FF;
  }
  if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32) {
    *err = "unsupported BMP bit depth " + std::to_string(bpp);
    return false;
  }
  std::vector<uint8_t> palette;  // RGB triples
  if (bpp <= 8) {
    uint32_t n = palette_count ? palette_count : (1u << bpp);
    if (n > 256) n = 256;
    const size_t at = 14 + header_size;
    if (at > size || (size - at) / palette_entry < n) {
      *err = "BMP palette is truncated";
      return false;
    }
    palette.resize(256 * 3, 0);
    for (uint32_t i = 0; i < n; ++i) {
      const uint8_t* e = data + at + i * palette_entry;
      palette[i * 3 + 0] = e[2];
      palette[i * 3 + 1] = e[1];
      palette[i * 3 + 2] = e[0];
    }
  }
  const uint64_t row_bytes = ((static_cast<uint64_t>(w) * bpp + 31) / 32) * 4;
  if (pixel_offset > size || (size - pixel_offset) / row_bytes < static_cast<uint64_t>(h)) {
    *err = "BMP pixel data is truncated";
    return false;
  }
  img->width = w;
  img->height = h;
  img->rgb.resize(static_cast<size_t>(w * h * 3));
  for (int64_t y = 0; y < h; ++y) {
    const uint8_t* row = data + pixel_offset + (top_down ? y : h - 1 - y) * row_bytes;
    uint8_t* out = img->rgb.data() + y * w * 3;
    for (int64_t x = 0; x < w; ++x, out += 3) {
      if (bpp == 24) {
        out[0] = row[x * 3 + 2];
        out[1] = row[x * 3 + 1];
        out[2] = row[x * 3 + 0];
      } else if (bpp == 16 || bpp == 32) {
        uint32_t v = bpp == 16 ? Le16(row + x * 2) : Le32(row + x * 4);
        for (int k = 0; k < 3; ++k) out[k] = MaskedChannel(v, masks[k]);
      } else {
        const int64_t bit = x * bpp;
        const uint8_t byte = row[bit / 8];
        const int shift = 8 - bpp - static_cast<int>(bit % 8);
        const uint32_t idx = (byte >> shift) & ((1u << bpp) - 1);
        std::memcpy(out, palette.data() + idx * 3, 3);
      }
    }
  }
  return true;
}

// ---- PNM (P1-P6) ------------------------------------------------------------------------
bool DecodePnm(const uint8_t* data, size_t size, RgbImage* img, Error* err) {
  const int kind = data[1] - '0';
  size_t pos = 2;
  auto next_int = [&](uint64_t* v) -> bool {
    while (pos < size) {
      if (data[pos] == '#') {
        while (pos < size && data[pos] != '\n' && data[pos] != '\r') ++pos;
      } else if (std::isspace(data[pos])) {
        ++pos;
      } else {
        break;
      }
    }
    if (pos >= size || !std::isdigit(data[pos])) return false;
    *v = 0;
    while (pos < size && std::isdigit(data[pos])) {
      *v = *v * 10 + (data[pos++] - '0');
      if (*v > (uint64_t{1} << 40)) return false;
    }
    return true;
  };
  uint64_t w = 0, h = 0, maxval = 1;
  if (!next_int(&w) || !next_int(&h) || (kind != 1 && kind != 4 && !next_int(&maxval))) {
    *err = "invalid PNM header";
    return false;
  }
  if (maxval == 0 || maxval > 65535) {
    *err = "invalid PNM maximum value " + std::to_string(maxval);
    return false;
  }
  if (!SizeOk(w, h, err)) return false;
  const bool ascii = kind <= 3;
  const int channels = (kind == 3 || kind == 6) ? 3 : 1;
  const uint64_t n = w * h * channels;
  std::vector<uint8_t> samples(static_cast<size_t>(n));
  auto scale = [&](uint64_t v) -> uint8_t {
    if (v > maxval) v = maxval;
    return static_cast<uint8_t>(maxval == 255 ? v : (v * 255 + maxval / 2) / maxval);
  };
  if (ascii) {
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t v;
      if (kind == 1) {  // bits may be packed without spaces
        while (pos < size && (std::isspace(data[pos]) || data[pos] == '#')) {
          if (data[pos] == '#')
            while (pos < size && data[pos] != '\n') ++pos;
          else
            ++pos;
        }
        if (pos >= size || (data[pos] != '0' && data[pos] != '1')) {
          *err = "PNM pixel data is truncated";
          return false;
        }
        v = data[pos++] == '1' ? 0 : 255;  // 1 is black
        samples[i] = static_cast<uint8_t>(v);
        continue;
      }
      if (!next_int(&v)) {
        *err = "PNM pixel data is truncated";
        return false;
      }
      samples[i] = scale(v);
    }
  } else {
    if (pos >= size || !std::isspace(data[pos])) {
      *err = "invalid PNM header";
      return false;
    }
    ++pos;  // the single whitespace before the raster
    if (kind == 4) {
      const uint64_t row_bytes = (w + 7) / 8;
      if ((size - pos) / row_bytes < h) {
        *err = "PNM pixel data is truncated";
        return false;
      }
      for (uint64_t y = 0; y < h; ++y)
        for (uint64_t x = 0; x < w; ++x) {
          uint8_t byte = data[pos + y * row_bytes + x / 8];
          samples[y * w + x] = ((byte >> (7 - x % 8)) & 1) ? 0 : 255;
        }
    } else {
      const uint64_t bytes_per = maxval > 255 ? 2 : 1;
      if ((size - pos) / bytes_per < n) {
        *err = "PNM pixel data is truncated";
        return false;
      }
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t v = bytes_per == 2 ? (data[pos + 2 * i] << 8) | data[pos + 2 * i + 1] : data[pos + i];
        samples[i] = scale(v);
      }
    }
  }
  img->width = static_cast<int64_t>(w);
  img->height = static_cast<int64_t>(h);
  img->rgb.resize(static_cast<size_t>(w * h * 3));
  for (uint64_t i = 0; i < w * h; ++i)
    for (int ch = 0; ch < 3; ++ch) img->rgb[i * 3 + ch] = samples[i * channels + (channels == 3 ? ch : 0)];
  return true;
}

// ---- format detection ---------------------------------------------------------------------
bool StartsWith(const uint8_t* d, size_t n, const char* magic, size_t m) {
  return n >= m && std::memcmp(d, magic, m) == 0;
}

bool Decode(const uint8_t* d, size_t n, RgbImage* img, Error* err) {
  if (StartsWith(d, n, "\xFF\xD8\xFF", 3)) return DecodeJpeg(d, n, img, err);
  if (StartsWith(d, n, "\x89PNG\r\n\x1A\n", 8)) return DecodePng(d, n, img, err);
  if (n >= 12 && StartsWith(d, n, "RIFF", 4) && std::memcmp(d + 8, "WEBP", 4) == 0) return DecodeWebp(d, n, img, err);
  if (StartsWith(d, n, "II*\0", 4) || StartsWith(d, n, "MM\0*", 4)) return DecodeTiff(d, n, img, err);
  if (StartsWith(d, n, "\0\0\0\x0CjP  \r\n\x87\n", 12)) return DecodeJpeg2000(d, n, true, img, err);
  if (StartsWith(d, n, "\xFF\x4F\xFF\x51", 4)) return DecodeJpeg2000(d, n, false, img, err);
  if (StartsWith(d, n, "BM", 2)) return DecodeBmp(d, n, img, err);
  if (n >= 3 && d[0] == 'P' && d[1] >= '1' && d[1] <= '6' && std::isspace(d[2])) return DecodePnm(d, n, img, err);
  *err = "unrecognized image format (supported: JPEG, PNG, WebP, TIFF, JPEG 2000, BMP, PNM)";
  return false;
}

enum class PixelFormat { kRGB, kBGR, kGray };

class ImageDecoder final : public OpKernel {
 public:
  explicit ImageDecoder(const KernelInfo& info) {
    std::string f = info.attr_string("pixel_format", "RGB");
    if (f == "RGB")
      format_ = PixelFormat::kRGB;
    else if (f == "BGR")
      format_ = PixelFormat::kBGR;
    else if (f == "Grayscale")
      format_ = PixelFormat::kGray;
    else
      info.Fail("pixel_format must be RGB, BGR or Grayscale, got '", f, "'");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    if (in.dtype() != DataType::kUInt8) ctx.Fail("encoded_stream must be uint8, got ", in.Describe());
    if (in.rank() != 1) ctx.Fail("encoded_stream must be 1-D, got ", in.Describe());
    RgbImage img;
    Error err;
    if (!Decode(in.data<uint8_t>(), static_cast<size_t>(in.numel()), &img, &err)) ctx.Fail(err);
    const int64_t pixels = img.width * img.height;
    const uint8_t* src = img.rgb.data();
    if (format_ == PixelFormat::kGray) {
      Tensor& out = ctx.allocate_output(0, DataType::kUInt8, {img.height, img.width, 1});
      uint8_t* o = out.data<uint8_t>();
      // ITU-R 601-2 luma in 16-bit fixed point, rounded (as PIL's "L" conversion).
      for (int64_t i = 0; i < pixels; ++i)
        o[i] = static_cast<uint8_t>((src[i * 3] * 19595u + src[i * 3 + 1] * 38470u + src[i * 3 + 2] * 7471u +
                                     0x8000u) >> 16);
      return;
    }
    Tensor& out = ctx.allocate_output(0, DataType::kUInt8, {img.height, img.width, 3});
    uint8_t* o = out.data<uint8_t>();
    if (format_ == PixelFormat::kRGB) {
      std::memcpy(o, src, static_cast<size_t>(pixels * 3));
    } else {
      for (int64_t i = 0; i < pixels; ++i) {
        o[i * 3] = src[i * 3 + 2];
        o[i * 3 + 1] = src[i * 3 + 1];
        o[i * 3 + 2] = src[i * 3];
      }
    }
  }

 private:
  PixelFormat format_ = PixelFormat::kRGB;
};

}  // namespace

std::vector<KernelRow> ImageKernels() {
  return {
      {kOnnxDomain, "ImageDecoder", 20, kMaxOnnxOpset, {DataType::kUInt8}, Make<ImageDecoder>()},
  };
}

}  // namespace tessera::cpu
