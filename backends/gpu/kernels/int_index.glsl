// Integer graph inputs (token ids, attention masks) as the kernels read
// them, in place in the caller's bytes: INDEX_WORDS 32-bit words per element
// (2: int64, little-endian, as the host wrote it; 1: int32). The including
// kernel declares the buffer `ids` (int[]) before this file.
layout(constant_id = 19) const int INDEX_WORDS = 2;

/// Element j's low word in v, and its high word (the sign extension of an
/// int32 element).
void indexWords(int j, out int v, out int hi) {
  v = LOAD(ids, j * INDEX_WORDS);
  hi = INDEX_WORDS == 2 ? LOAD(ids, j * INDEX_WORDS + 1) : (v >> 31);
}

/// Whether element j fits an int32; its value in v.
bool indexValue(int j, out int v) {
  int hi;
  indexWords(j, v, hi);
  return hi == (v >> 31);
}
