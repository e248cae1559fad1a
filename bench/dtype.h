// Datatype and reduction-operation names and sizes, as nccl-tests spells them.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kernels/types.h"

namespace collbench {

struct DTypeInfo {
  DType type;
  std::string_view name;  // nccl-tests' name, printed in the table
  std::size_t size;       // bytes per element
  bool is_float;
};

const DTypeInfo& dtype_info(DType t);
std::span<const DTypeInfo> all_dtypes();
// Accepts nccl-tests names and common aliases (fp32, f16, bf16, ...).
std::optional<DType> parse_dtype(std::string_view text);
std::string dtype_names();  // "int8, uint8, ..." for error messages

std::string_view redop_name(RedOp op);
std::optional<RedOp> parse_redop(std::string_view text);
std::string redop_names();

}  // namespace collbench
