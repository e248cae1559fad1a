// Host twins of the device fill/verify kernels. The buffer is walked by layout row and pattern
// chunk; each run is a stretch of the pattern table, copied (1- and 2-byte types, from a table
// already in their encoding) or converted as it goes (wider types, whose tables would not stay in
// cache). Per-element work runs in blocks of 1 KiB: constant trip counts, which GCC vectorizes
// even at -O2.
#include "bench/host_pattern.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/dispatch.h"

namespace collbench {
namespace {

using pattern::Fill;
using pattern::kChunk;

constexpr pattern::Table kTable = pattern::make_table();

template <std::size_t N> struct UInt;
template <> struct UInt<1> { using type = std::uint8_t; };
template <> struct UInt<2> { using type = std::uint16_t; };
template <> struct UInt<4> { using type = std::uint32_t; };
template <> struct UInt<8> { using type = std::uint64_t; };
// A datatype's bits, compared and blended as an unsigned integer.
template <DType T> using bits_t = typename UInt<sizeof(pattern::storage_t<T>)>::type;

// Elements per block: 1 KiB.
template <DType T> constexpr unsigned kBlock = 1024 / sizeof(bits_t<T>);
template <DType T> using FullBlock = std::integral_constant<unsigned, kBlock<T>>;

template <DType T> bits_t<T> bits_of(int v) {
  const auto x = pattern::encode<T>(v);
  bits_t<T> b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Tables in T's encoding where that stays small (256 KiB for 2-byte types; 1-byte types' values
// are their own encoding); wider types convert table entries as they go.
template <DType T> constexpr bool kEncodedTable = sizeof(pattern::storage_t<T>) <= 2;

template <DType T> const auto* source() {
  if constexpr (sizeof(pattern::storage_t<T>) == 2) {
    static const auto* table = [] {
      static bits_t<T> t[sizeof kTable.v];
      for (std::size_t j = 0; j < sizeof kTable.v; ++j) t[j] = bits_of<T>(kTable.v[j]);
      return t;
    }();
    return table;
  } else {
    return kTable.v;
  }
}

template <class U> U load(const std::byte* p, std::uint64_t j) {
  U a;
  std::memcpy(&a, p + j * sizeof(U), sizeof(U));
  return a;
}
template <class U> void store(std::byte* p, std::uint64_t j, U a) { std::memcpy(p + j * sizeof(U), &a, sizeof(U)); }

// What every run of one walk shares.
template <DType T> struct Ctx {
  const pattern::Spec& spec;
  const pattern::Layout& layout;
  bits_t<T> id;               // the reduction identity
  bits_t<T> own[2 * kBlock<T>];  // own[kBlock + j] all ones iff j % nranks == 0
};

// A table entry as T's bits: already so in an encoded table, converted otherwise.
template <DType T, class E> bits_t<T> entry_bits(E e) {
  if constexpr (kEncodedTable<T>)
    return e;
  else
    return bits_of<T>(e);
}

template <class U> U blend(U v, U own, U id) { return static_cast<U>((v & own) | (id & ~own)); }

// Up to kBlock elements at p from table run src, kept where own[j] is all ones (own null: all)
// and the identity elsewhere. Fills them, or returns how many differ. Plain indexed loops over
// restrict pointers: what the vectorizer needs to see.
template <DType T, bool Check, class Src, class Len>
std::int64_t block(std::byte* __restrict p, const Src* __restrict src, const bits_t<T>* __restrict own,
                   bits_t<T> id, Len len) {
  using U = bits_t<T>;
  if constexpr (!Check) {
    if (own)
      for (unsigned j = 0; j < len; ++j) store(p, j, blend(entry_bits<T>(src[j]), own[j], id));
    else
      for (unsigned j = 0; j < len; ++j) store(p, j, entry_bits<T>(src[j]));
    return 0;
  } else {
    // Mismatches are rare: one OR over the block, and a count only when it is non-zero.
    U diff = 0;
    if (own)
      for (unsigned j = 0; j < len; ++j) diff |= load<U>(p, j) ^ blend(entry_bits<T>(src[j]), own[j], id);
    else
      for (unsigned j = 0; j < len; ++j) diff |= load<U>(p, j) ^ entry_bits<T>(src[j]);
    if (diff == 0) return 0;
    std::int64_t wrong = 0;
    for (unsigned j = 0; j < len; ++j) {
      const U want = entry_bits<T>(src[j]);
      wrong += load<U>(p, j) != (own ? blend(want, own[j], id) : want);
    }
    return wrong;
  }
}

// Elements [0, m) at p, holding pattern indices g .. g+m-1 inside one chunk.
template <DType T, bool Check>
std::int64_t run(std::byte* p, std::uint64_t g, std::uint64_t m, const Ctx<T>& c) {
  const auto* src = source<T>() + g % kChunk + pattern::chunk_offset(c.spec.seed, g / kChunk);
  const bool reduce = c.layout.fill == Fill::Reduce;
  // d: offset of the next element this rank owns from the block start; ranks own indices in turn.
  std::uint64_t n = 1, d = 0, step = 0;
  if (reduce) {
    n = static_cast<std::uint64_t>(c.spec.nranks);
    const auto o = static_cast<std::uint64_t>(pattern::owner(c.spec.seed, g, c.spec.nranks));
    const auto r = static_cast<std::uint64_t>(c.spec.rank);
    d = r >= o ? r - o : r + n - o;
    step = kBlock<T> % n;
  }
  auto own = [&] { return reduce ? c.own + kBlock<T> - std::min<std::uint64_t>(d, kBlock<T>) : nullptr; };
  std::int64_t wrong = 0;
  std::uint64_t j = 0;
  for (; j + kBlock<T> <= m; j += kBlock<T>) {
    wrong += block<T, Check>(p + j * sizeof(bits_t<T>), src + j, own(), c.id, FullBlock<T>{});
    d = d >= step ? d - step : d + n - step;
  }
  if (j < m)
    wrong += block<T, Check>(p + j * sizeof(bits_t<T>), src + j, own(), c.id, static_cast<unsigned>(m - j));
  return wrong;
}

// Walks count elements at p laid out as l, one run per row and chunk.
template <DType T, bool Check>
std::int64_t walk(std::byte* p, std::uint64_t count, const pattern::Spec& s, const pattern::Layout& l) {
  Ctx<T> c{s, l, bits_of<T>(pattern::identity(s.redop)), {}};
  if (l.fill == Fill::Reduce)
    for (std::uint64_t y = kBlock<T>; y < 2 * kBlock<T>; y += static_cast<std::uint64_t>(s.nranks))
      c.own[y] = static_cast<bits_t<T>>(~bits_t<T>{0});
  const std::uint64_t len = l.len ? l.len : count;
  std::int64_t wrong = 0;
  for (std::uint64_t i = 0, row = 0; i < count; ++row) {
    const std::uint64_t end = i + std::min(len, count - i);
    for (std::uint64_t g = l.first + row * l.stride; i < end;) {
      const std::uint64_t m = std::min(end - i, kChunk - g % kChunk);
      wrong += run<T, Check>(p + i * sizeof(bits_t<T>), g, m, c);
      i += m;
      g += m;
    }
  }
  return wrong;
}

template <DType T, bool Check> std::int64_t fixed(std::byte* p, std::uint64_t count, int v) {
  using U = bits_t<T>;
  const U x = bits_of<T>(v);
  U diff = 0;
  std::uint64_t i = 0;
  for (; i + kBlock<T> <= count; i += kBlock<T>)
    for (unsigned j = 0; j < kBlock<T>; ++j) {
      if constexpr (Check)
        diff |= load<U>(p, i + j) ^ x;
      else
        store(p, i + j, x);
    }
  std::int64_t wrong = 0;
  for (std::uint64_t k = Check && diff ? 0 : i; k < count; ++k) {
    if constexpr (Check)
      wrong += load<U>(p, k) != x;
    else
      store(p, k, x);
  }
  return wrong;
}

template <bool Check>
std::int64_t apply(DType t, std::byte* p, std::uint64_t count, const pattern::Spec& s, const pattern::Layout& l) {
  return with_dtype(t, [&](auto tag) -> std::int64_t {
    constexpr DType T = decltype(tag)::value;
    return l.fill == Fill::Fixed ? fixed<T, Check>(p, count, l.fixed) : walk<T, Check>(p, count, s, l);
  });
}

}  // namespace

void host_fill_input(DType t, void* dst, std::uint64_t count, const pattern::Spec& spec) {
  apply<false>(t, static_cast<std::byte*>(dst), count, spec, pattern::input_layout(spec));
}

void host_fill_value(DType t, void* dst, std::uint64_t count, int v) {
  with_dtype(t, [&](auto tag) { fixed<decltype(tag)::value, false>(static_cast<std::byte*>(dst), count, v); });
}

std::int64_t host_count_wrong(DType t, const void* src, std::uint64_t count, const pattern::Spec& spec) {
  // Checking only reads the buffer; the walk is shared with filling.
  auto* p = static_cast<std::byte*>(const_cast<void*>(src));
  return apply<true>(t, p, count, spec, pattern::expected_layout(spec));
}

}  // namespace collbench
