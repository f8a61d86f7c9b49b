// pto.DataType, the numpy representation of tile elements, and the
// converters between any element format and float32 (num::convert, the
// library's correctly rounded encoder).
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <algorithm>

#include "bindings.hpp"
#include "numerics/format.hpp"
#include "tile/tile_types.hpp"

namespace pto::python {
namespace {

py::module_ numpy() { return py::module_::import("numpy"); }

// The unsigned numpy type of the same width as `t`'s numpy type: raw bits go
// through it in both directions.
py::dtype unsigned_view_of(num::DataType t) {
  return py::dtype(fmt::format("u{}", numpy_dtype_of(t).itemsize()));
}

std::uint64_t element_mask(num::DataType t) {
  const unsigned bits = tile::element_bits(t);
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// Whether a carrier of `carrier_bits` (zero-extended) holds a value of
// `t`'s element width: the bits above it are zero, or for a signed integer
// all copies of the element's sign bit.
bool fits_element(std::uint64_t carrier, num::DataType t, unsigned carrier_bits) {
  const unsigned bits = tile::element_bits(t);
  if (bits >= carrier_bits) return true;
  if (!tile::data_type_is_signed_integer(t)) return carrier >> bits == 0;
  const std::uint64_t from_sign = carrier >> (bits - 1);
  return from_sign == 0 || from_sign == (std::uint64_t{1} << (carrier_bits - bits + 1)) - 1;
}

// A signed integer element's bits sign-extended to 64 (S4X2 included, whose
// nibble the int8 carrier holds as -8..7); other types' bits unchanged.
std::uint64_t widened(std::uint64_t raw, num::DataType t) {
  const unsigned bits = tile::element_bits(t);
  if (!tile::data_type_is_signed_integer(t) || bits >= 64) return raw;
  const unsigned shift = 64 - bits;
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(raw << shift) >> shift);
}

num::RoundingMode rounding_mode(const std::string& name) {
  if (auto m = num::rounding_mode_from_name(name)) return *m;
  throw py::value_error(fmt::format("unknown rounding mode '{}' (RNE, RTZ, RTM, RTP, RNA, RTO, RHB)", name));
}

// Every element of `values` (raw carriers of `from`) converted to `to`.
std::vector<std::uint64_t> convert_all(const std::vector<std::uint64_t>& values, num::DataType from, num::DataType to,
                                       num::RoundingMode mode, bool saturate) {
  std::vector<std::uint64_t> out;
  out.reserve(values.size());
  for (std::uint64_t v : values) out.push_back(num::convert(from, to, v, mode, saturate).bits);
  return out;
}

std::vector<py::ssize_t> shape_of(const py::handle& values) {
  const py::array a = numpy().attr("asarray")(values);
  return {a.shape(), a.shape() + a.ndim()};
}

}  // namespace

py::dtype numpy_dtype_of(num::DataType t) {
  using num::DataType;
  switch (t) {
    case DataType::FP64: return py::dtype("float64");
    case DataType::FP32: return py::dtype("float32");
    case DataType::FP16: return py::dtype("float16");
    case DataType::S4X2: return py::dtype("int8");
    default: break;
  }
  const unsigned bytes = num::carrier_bits(t) / 8;
  return py::dtype(fmt::format("{}{}", num::info(t).kind == num::DataTypeKind::Signed ? 'i' : 'u', bytes));
}

py::array carriers_to_array(const std::vector<std::uint64_t>& raw, num::DataType t, std::vector<py::ssize_t> shape) {
  py::array_t<std::uint64_t> wide(static_cast<py::ssize_t>(raw.size()));
  std::transform(raw.begin(), raw.end(), wide.mutable_data(), [t](std::uint64_t v) { return widened(v, t); });
  // astype truncates to the carrier width; view reinterprets the bits.
  return wide.attr("astype")(unsigned_view_of(t)).attr("view")(numpy_dtype_of(t)).attr("reshape")(shape);
}

std::vector<std::uint64_t> array_to_carriers(const py::handle& values, num::DataType t) {
  const py::array typed = numpy().attr("ascontiguousarray")(values, numpy_dtype_of(t));
  const auto wide = py::array_t<std::uint64_t>(typed.attr("view")(unsigned_view_of(t)).attr("astype")("u8").attr("ravel")());
  const unsigned carrier_bits = static_cast<unsigned>(typed.itemsize()) * 8;
  std::vector<std::uint64_t> out(wide.data(), wide.data() + wide.size());
  for (std::uint64_t& v : out) {
    if (!fits_element(v, t, carrier_bits)) {
      throw py::value_error(fmt::format("{:#x} does not fit a {}-bit {} element", v, tile::element_bits(t), num::name(t)));
    }
    v &= element_mask(t);
  }
  return out;
}

void bind_numerics(py::module_& m) {
  py::enum_<num::DataType> dt(m, "DataType", "Tile element data types (the architectural 5-bit codes)");
  for (const num::DataTypeInfo& i : num::kDataTypeTable) dt.value(std::string(i.name).c_str(), i.type);
  dt.def_static(
      "from_name",
      [](const std::string& name) {
        if (auto t = num::data_type_from_name_ci(name)) return *t;
        throw py::key_error(fmt::format("no data type named '{}'", name));
      },
      py::arg("name"), "The data type of a spelling such as 'bf16' or 'E4M3' (case-insensitive)");
  dt.def_property_readonly("bits", [](num::DataType t) { return tile::element_bits(t); },
                           "Element width in bits (4 for the packed X2 types)");
  dt.def_property_readonly("numpy_dtype", &numpy_dtype_of,
                           "The numpy dtype pto uses for elements of this type (raw carriers for BF16, FP8, FP4 ...)");

  m.def(
      "to_float32",
      [](const py::handle& values, num::DataType t) {
        const auto out = convert_all(array_to_carriers(values, t), t, num::DataType::FP32, num::RoundingMode::RNE, false);
        return carriers_to_array(out, num::DataType::FP32, shape_of(values));
      },
      py::arg("array"), py::arg("dtype"),
      "Element values of type `dtype` (as m.tile returns them) as float32, rounded to nearest even when inexact");
  m.def(
      "from_float32",
      [](const py::handle& values, num::DataType t, const std::string& rounding, bool saturate) {
        const auto out = convert_all(array_to_carriers(values, num::DataType::FP32), num::DataType::FP32, t,
                                     rounding_mode(rounding), saturate);
        return carriers_to_array(out, t, shape_of(values));
      },
      py::arg("array"), py::arg("dtype"), py::arg("rounding") = "RNE", py::arg("saturate") = false,
      "float32 values encoded as `dtype` elements (the representation m.tile and m.set_tile use)");
}

}  // namespace pto::python
