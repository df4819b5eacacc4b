package dev.kiln;

import java.util.Arrays;

/** A graph input or output: its name, element type, layout and shape. */
public final class TensorInfo {
  private final String name;
  private final DType dtype;
  private final Layout layout;
  private final long[] shape;
  private final long byteSize;

  TensorInfo(String name, long[] desc) {
    // desc: dtype, layout, byte size, then the dims (NativeApi.tensorDesc).
    this.name = name;
    this.dtype = DType.of(desc[0]);
    this.layout = Layout.of(desc[1]);
    this.byteSize = desc[2];
    this.shape = Arrays.copyOfRange(desc, 3, desc.length);
  }

  public String name() {
    return name;
  }

  public DType dtype() {
    return dtype;
  }

  public Layout layout() {
    return layout;
  }

  /** The dims; -1 for a symbolic dim of a model (not of a session). */
  public long[] shape() {
    return shape.clone();
  }

  /** Bytes of the tensor's values; 0 where a dim is symbolic. */
  public long byteSize() {
    return byteSize;
  }

  /** Elements of the tensor (byteSize / dtype size). */
  public long elementCount() {
    return dtype.byteSize() == 0 ? 0 : byteSize / dtype.byteSize();
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(name).append(": ")
        .append(dtype.name().toLowerCase()).append('[');
    for (int i = 0; i < shape.length; ++i)
      s.append(i == 0 ? "" : ",").append(shape[i]);
    return s.append(']').toString();
  }
}
