// Tensor: a non-owning view of typed memory (pointer, element count, dtype, device).
// weft never allocates, frees or resizes what a Tensor points to; the caller keeps the
// memory alive until the operation (or its Request) has completed. Counts are 64-bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "weft/types.h"

namespace weft {

enum class DeviceType : uint8_t { kCpu, kCuda };

struct Device {
  DeviceType type = DeviceType::kCpu;
  int index = 0;
  bool operator==(const Device&) const = default;
};

class Tensor {
 public:
  Tensor() = default;
  Tensor(void* data, uint64_t count, DType dtype, Device device = {})
      : data_(data), count_(count), dtype_(dtype), device_(device) {}

  void* data() const { return data_; }
  uint64_t count() const { return count_; }
  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  uint64_t bytes() const { return count_ * dtype_size(dtype_); }

 private:
  void* data_ = nullptr;
  uint64_t count_ = 0;
  DType dtype_ = DType::kUInt8;
  Device device_;
};

template <typename T>
struct dtype_of;
template <>
struct dtype_of<int8_t> {
  static constexpr DType value = DType::kInt8;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr DType value = DType::kUInt8;
};
template <>
struct dtype_of<int32_t> {
  static constexpr DType value = DType::kInt32;
};
template <>
struct dtype_of<uint32_t> {
  static constexpr DType value = DType::kUInt32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr DType value = DType::kInt64;
};
template <>
struct dtype_of<uint64_t> {
  static constexpr DType value = DType::kUInt64;
};
template <>
struct dtype_of<float16> {
  static constexpr DType value = DType::kFloat16;
};
template <>
struct dtype_of<bfloat16> {
  static constexpr DType value = DType::kBFloat16;
};
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::kFloat32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::kFloat64;
};

// view(span) / view(container): a CPU tensor over existing memory. A view of const
// data may be sent from but never received into.
template <typename T, size_t Extent>
Tensor view(std::span<T, Extent> elements) {
  using Element = std::remove_const_t<T>;
  return Tensor(const_cast<Element*>(elements.data()), elements.size(), dtype_of<Element>::value);
}

template <typename Container>
auto view(Container& container) -> decltype(view(std::span(container))) {
  return view(std::span(container));
}

}  // namespace weft
