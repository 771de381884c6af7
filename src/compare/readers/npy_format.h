// The .npy array format (numpy/lib/format.py): magic, version 1/2/3 header with a Python dict literal
// {'descr', 'fortran_order', 'shape'}, then raw element bytes. Parsing never trusts the header: the
// caller gets an error string instead of a view whenever the bytes do not hold what it claims.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace banjia::compare {

enum class DType { kBool, kI8, kU8, kI16, kU16, kI32, kU32, kI64, kU64, kF16, kBF16, kF32, kF64 };

// torch-style name ("float32", "bfloat16", "int64", "bool").
std::string_view dtype_name(DType t);
size_t dtype_size(DType t);
bool dtype_is_float(DType t);

struct NpyView {
  DType dtype = DType::kF32;
  bool big_endian = false;      // bytes must be swapped on this (little-endian) machine
  bool fortran_order = false;
  std::vector<int64_t> shape;   // empty = 0-d (one element)
  const std::byte* data = nullptr;
  size_t count = 0;             // number of elements
  size_t byte_size() const { return count * dtype_size(dtype); }
};

// Parses a whole .npy image. Returns the view (pointing into `bytes`) or a one-line problem.
std::variant<NpyView, std::string> parse_npy(std::string_view bytes);

// Maps a numpy descr such as "<f4", "|b1", ">i8", "bfloat16" or "<V2" (bf16 written by ml_dtypes)
// to a dtype; false when unsupported (complex, strings, objects, structured types).
bool parse_descr(std::string_view descr, DType& dtype, bool& big_endian);

// Maps a torch or msprobe dtype name ("torch.float16", "Float32", "bfloat16") to a DType.
bool parse_dtype_name(std::string_view name, DType& dtype);

std::string shape_string(const std::vector<int64_t>& shape);

// Decodes `len` elements starting at storage index `start` into doubles (npy_format_elements.cpp).
void decode_elements(const NpyView& v, size_t start, size_t len, double* out);
// Element i (in storage order) as a double.
double element_as_double(const NpyView& v, size_t i);

}  // namespace banjia::compare
