package dev.kiln;

/** Element types of graph inputs and outputs (kiln_dtype in kiln/kiln.h). */
public enum DType {
  UNKNOWN(0, 0),
  F32(1, 4),
  F16(2, 2),
  BF16(3, 2),
  F64(4, 8),
  I64(5, 8),
  I32(6, 4),
  I16(7, 2),
  I8(8, 1),
  U64(9, 8),
  U32(10, 4),
  U16(11, 2),
  U8(12, 1),
  BOOL(13, 1);

  private final int code;
  private final int byteSize;

  DType(int code, int byteSize) {
    this.code = code;
    this.byteSize = byteSize;
  }

  /** Bytes per element. */
  public int byteSize() {
    return byteSize;
  }

  static DType of(long code) {
    for (DType t : values())
      if (t.code == code)
        return t;
    return UNKNOWN;
  }
}
