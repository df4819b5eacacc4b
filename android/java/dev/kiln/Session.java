package dev.kiln;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;

/**
 * A model's memory and operators, ready to run: set the inputs, run, read
 * the outputs. Methods are synchronized: a session runs one call at a time,
 * and closing it waits for a run in progress. For parallel runs, make one
 * session per thread from the same {@link Model}.
 *
 * <p>Inputs from direct buffers are read in place: the runtime copies them
 * once into the session's memory, as {@code kiln_session_set_input} does for
 * C callers, and nothing is copied on the Java side. Outputs are copied
 * into the array or buffer the caller reads them from; a view into the
 * session's memory would dangle once the session runs again or is closed.
 * Multi-byte values in a buffer must be in the platform's byte order:
 * {@code ByteBuffer.allocateDirect(n).order(ByteOrder.nativeOrder())}.
 */
public final class Session implements AutoCloseable {
  private long handle;
  private final TensorInfo[] inputs;
  private final TensorInfo[] outputs;

  /** Takes ownership of handle, made from a model of these input and output counts. */
  Session(long handle, int numInputs, int numOutputs) {
    this.handle = handle;
    this.inputs = new TensorInfo[numInputs];
    this.outputs = new TensorInfo[numOutputs];
    try {
      for (int i = 0; i < numInputs; ++i)
        inputs[i] = new TensorInfo(NativeApi.tensorName(handle, true, false, i),
            NativeApi.tensorDesc(handle, true, false, i));
      for (int i = 0; i < numOutputs; ++i)
        outputs[i] = new TensorInfo(NativeApi.tensorName(handle, true, true, i),
            NativeApi.tensorDesc(handle, true, true, i));
    } catch (RuntimeException | Error e) {
      NativeApi.sessionDestroy(handle);
      this.handle = 0;
      throw e;
    }
  }

  public int numInputs() {
    return inputs.length;
  }

  public int numOutputs() {
    return outputs.length;
  }

  /** Input index at this session's sizes. */
  public TensorInfo inputInfo(int index) {
    Model.checkIndex(index, inputs.length, "input");
    return inputs[index];
  }

  public TensorInfo outputInfo(int index) {
    Model.checkIndex(index, outputs.length, "output");
    return outputs[index];
  }

  /** The index of the input named name. */
  public int inputIndex(String name) {
    return indexOf(inputs, name, "input");
  }

  public int outputIndex(String name) {
    return indexOf(outputs, name, "output");
  }

  /** The target that runs this session: "cpu", "vulkan", "nnapi" or "metal". */
  public synchronized String target() {
    return NativeApi.sessionEngine(live())[0];
  }

  /** The device ("" on the CPU; the GPU's name for Vulkan). */
  public synchronized String device() {
    return NativeApi.sessionEngine(live())[1];
  }

  // ---- Inputs --------------------------------------------------------------

  /**
   * Sets input index from the remaining bytes of data, which must be the
   * input's byte size: values of its type, in native byte order where they
   * have more than one byte. Positions are left as they are.
   */
  public synchronized void setInput(int index, ByteBuffer data) {
    TensorInfo t = inputChecked(index, data);
    if (t.dtype().byteSize() > 1 && data.order() != ByteOrder.nativeOrder())
      throw new IllegalArgumentException("input '" + t.name() + "' holds "
          + t.dtype() + " values and the buffer is " + data.order()
          + ": set .order(ByteOrder.nativeOrder())");
    setBuffer(t, index, data, 1, data.isDirect() ? null : data.hasArray() ? data.array() : null,
        data.hasArray() ? data.arrayOffset() : 0);
  }

  /** Sets an f32 input from the remaining floats of data. */
  public synchronized void setInput(int index, FloatBuffer data) {
    TensorInfo t = typedInput(index, data, DType.F32);
    setBuffer(t, index, data, 4, data.hasArray() ? data.array() : null,
        data.hasArray() ? data.arrayOffset() : 0);
  }

  /** Sets an i32 input from the remaining ints of data. */
  public synchronized void setInput(int index, IntBuffer data) {
    TensorInfo t = typedInput(index, data, DType.I32);
    setBuffer(t, index, data, 4, data.hasArray() ? data.array() : null,
        data.hasArray() ? data.arrayOffset() : 0);
  }

  /** Sets an i64 input (token ids, say) from the remaining longs of data. */
  public synchronized void setInput(int index, LongBuffer data) {
    TensorInfo t = typedInput(index, data, DType.I64);
    setBuffer(t, index, data, 8, data.hasArray() ? data.array() : null,
        data.hasArray() ? data.arrayOffset() : 0);
  }

  public void setInput(int index, float[] data) {
    setInput(index, FloatBuffer.wrap(nonNull(data)));
  }

  public void setInput(int index, int[] data) {
    setInput(index, IntBuffer.wrap(nonNull(data)));
  }

  public void setInput(int index, long[] data) {
    setInput(index, LongBuffer.wrap(nonNull(data)));
  }

  /** Sets input index from its raw bytes (native byte order). */
  public void setInput(int index, byte[] data) {
    setInput(index, ByteBuffer.wrap(nonNull(data)).order(ByteOrder.nativeOrder()));
  }

  /**
   * Fills image input index (a model converted with --image-input) from a
   * frame of ARGB pixels, as {@code Bitmap.getPixels(pixels, offset, stride,
   * 0, 0, width, height)} gives them: rotated, cropped if asked, resized and
   * converted by the runtime. options may be null.
   */
  public synchronized void setImage(int index, int[] argb, int offset, int stride,
      int width, int height, ImageOptions options) {
    nonNull(argb);
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN)
      throw new UnsupportedOperationException("ARGB int pixels need a little-endian CPU");
    checkFrameSize(width, height);
    if (stride < width)
      throw new IllegalArgumentException("stride " + stride + " is less than the width " + width);
    if (4L * stride > Integer.MAX_VALUE)
      throw new IllegalArgumentException("a stride of " + stride + " pixels is too large");
    long need = (long) offset + (long) (height - 1) * stride + width;
    if (offset < 0 || need > argb.length)
      throw new IllegalArgumentException("a " + width + "x" + height + " frame at offset "
          + offset + " with stride " + stride + " needs " + need + " pixels; the array has "
          + argb.length);
    long h = live();
    imageInput(index);
    ImageOptions o = options == null ? new ImageOptions() : options;
    // 0xAARRGGBB in a little-endian int is the bytes B, G, R, A.
    NativeApi.setImageArray(h, index, argb, 4, 4L * offset, 4L * (need - offset), width,
        height, 4 * stride, PixelFormat.BGRA8.code, o.rotation, o.centerCrop);
  }

  /**
   * Fills image input index from a frame of width x height pixels in format
   * (the remaining bytes of pixels, rows rowStride bytes apart), as
   * {@code Bitmap.copyPixelsToBuffer} (RGBA8) gives it. NV21 is one buffer:
   * the Y plane's rows, then the interleaved VU rows with the same stride
   * (Camera1's preview bytes; CameraX's YUV_420_888 planes must be packed
   * into it). options may be null.
   */
  public synchronized void setImage(int index, ByteBuffer pixels, int width, int height,
      int rowStride, PixelFormat format, ImageOptions options) {
    nonNull(pixels);
    if (format == null || format == PixelFormat.UNKNOWN)
      throw new IllegalArgumentException("a pixel format is required");
    checkFrameSize(width, height);
    long rowBytes = (long) width * format.bytesPerPixel();
    if (rowStride < rowBytes)
      throw new IllegalArgumentException("row stride " + rowStride + " is less than "
          + rowBytes + " bytes (" + width + " " + format + " pixels)");
    long rows = format == PixelFormat.NV21 ? height + height / 2 : height;
    long need = (rows - 1) * rowStride + rowBytes;
    if (pixels.remaining() < need)
      throw new IllegalArgumentException("a " + width + "x" + height + " " + format
          + " frame with row stride " + rowStride + " needs " + need
          + " bytes; the buffer has " + pixels.remaining());
    long h = live();
    imageInput(index);
    ImageOptions o = options == null ? new ImageOptions() : options;
    if (pixels.isDirect()) {
      NativeApi.setImageDirect(h, index, pixels, 1, pixels.position(), need, width, height,
          rowStride, format.code, o.rotation, o.centerCrop);
    } else {
      byte[] array = pixels.hasArray() ? pixels.array() : copyOf(pixels);
      long start = pixels.hasArray() ? pixels.arrayOffset() + pixels.position() : 0;
      NativeApi.setImageArray(h, index, array, 1, start, need, width, height, rowStride,
          format.code, o.rotation, o.centerCrop);
    }
  }

  /**
   * Runs the file's self-test ({@code kiln convert --self-test}) on this
   * session's device: every input set to its stored sample, two runs, the
   * outputs compared with the stored references. The inputs hold the
   * samples afterwards: set them again. Throws KilnException
   * (INVALID_ARGUMENT) for a file without one.
   */
  public synchronized SelfTestResult selfTest() {
    return new SelfTestResult(NativeApi.selfTest(live()));
  }

  /** Runs the model on the inputs as they are set. */
  public synchronized void run() {
    NativeApi.run(live());
  }

  // ---- Outputs -------------------------------------------------------------

  /**
   * Copies output index into dst at its position, which advances by the
   * output's byte size; dst must have that many bytes remaining.
   */
  public synchronized void getOutput(int index, ByteBuffer dst) {
    TensorInfo t = outputInfo(index);
    nonNull(dst);
    if (dst.isReadOnly())
      throw new java.nio.ReadOnlyBufferException();
    copyOut(t, index, dst, 1, dst.hasArray() ? dst.array() : null,
        dst.hasArray() ? dst.arrayOffset() : 0);
  }

  /** Copies an f32 output into dst at its position, which advances. */
  public synchronized void getOutput(int index, FloatBuffer dst) {
    TensorInfo t = outputInfo(index);
    nonNull(dst);
    requireType(t, DType.F32, "output");
    if (dst.isReadOnly())
      throw new java.nio.ReadOnlyBufferException();
    if (dst.isDirect())
      requireNativeOrder(dst.order(), t);
    copyOut(t, index, dst, 4, dst.hasArray() ? dst.array() : null,
        dst.hasArray() ? dst.arrayOffset() : 0);
  }

  /** Output index (f32) as a new array. */
  public float[] getOutputFloats(int index) {
    float[] out = new float[elements(outputInfo(index), DType.F32)];
    getOutput(index, FloatBuffer.wrap(out));
    return out;
  }

  /** Output index (i32) as a new array. */
  public synchronized int[] getOutputInts(int index) {
    TensorInfo t = outputInfo(index);
    int[] out = new int[elements(t, DType.I32)];
    NativeApi.getOutputArray(live(), index, out, 4, 0, t.byteSize());
    return out;
  }

  /** Output index (i64) as a new array. */
  public synchronized long[] getOutputLongs(int index) {
    TensorInfo t = outputInfo(index);
    long[] out = new long[elements(t, DType.I64)];
    NativeApi.getOutputArray(live(), index, out, 8, 0, t.byteSize());
    return out;
  }

  /** Output index's raw bytes (native byte order), whatever its type. */
  public synchronized byte[] getOutputBytes(int index) {
    TensorInfo t = outputInfo(index);
    if (t.byteSize() > Integer.MAX_VALUE)
      throw new IllegalStateException("output '" + t.name() + "' exceeds a Java array");
    byte[] out = new byte[(int) t.byteSize()];
    NativeApi.getOutputArray(live(), index, out, 1, 0, t.byteSize());
    return out;
  }

  /**
   * A segmentation mask from output index: for scores [1, C, H, W] (NCHW) or
   * [1, H, W, C] (NHWC), the index of each pixel's highest score, H * W bytes
   * (classes 0-255; the first of equal scores). An output that already is a
   * mask (u8 from {@code kiln convert --argmax-output}, or i32/i64 class
   * indices) is returned as bytes. Scores [1, C] give one byte.
   */
  public synchronized byte[] argmaxMask(int index) {
    outputInfo(index);
    return NativeApi.argmaxMask(live(), index);
  }

  /** Frees the session; later calls throw IllegalStateException. Idempotent. */
  @Override
  public synchronized void close() {
    if (handle != 0) {
      NativeApi.sessionDestroy(handle);
      handle = 0;
    }
  }

  // ---- Checks --------------------------------------------------------------

  private long live() {
    if (handle == 0)
      throw new IllegalStateException("the session is closed");
    return handle;
  }

  private void imageInput(int index) {
    Model.checkIndex(index, inputs.length, "input");
  }

  private TensorInfo inputChecked(int index, Buffer data) {
    nonNull(data);
    live();
    return inputInfo(index);
  }

  private TensorInfo typedInput(int index, Buffer data, DType type) {
    TensorInfo t = inputChecked(index, data);
    requireType(t, type, "input");
    if (data.isDirect())
      requireNativeOrder(orderOf(data), t);
    return t;
  }

  private void setBuffer(TensorInfo t, int index, Buffer data, int elementSize, Object array,
      int arrayOffset) {
    long bytes = (long) data.remaining() * elementSize;
    if (bytes != t.byteSize())
      throw new IllegalArgumentException("input '" + t.name() + "' (" + t + ") takes "
          + t.byteSize() + " bytes; the buffer has " + bytes + " remaining");
    long offset = (long) data.position() * elementSize;
    if (data.isDirect()) {
      NativeApi.setInputDirect(handle, index, data, elementSize, offset, bytes);
    } else if (array != null) {
      NativeApi.setInputArray(handle, index, array, elementSize,
          (long) arrayOffset * elementSize + offset, bytes);
    } else {
      // A heap view without an accessible array (a FloatBuffer over a heap
      // ByteBuffer, a read-only buffer): copy it once.
      if (bytes > Integer.MAX_VALUE)
        throw new IllegalArgumentException("input '" + t.name()
            + "' is too large for a heap buffer view; use a direct buffer");
      ByteBuffer copy = ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder());
      copyInto(copy, data);
      NativeApi.setInputDirect(handle, index, copy, 1, 0, bytes);
    }
  }

  private void copyOut(TensorInfo t, int index, Buffer dst, int elementSize, Object array,
      int arrayOffset) {
    long h = live();
    long room = (long) dst.remaining() * elementSize;
    if (room < t.byteSize())
      throw new java.nio.BufferOverflowException();
    long offset = (long) dst.position() * elementSize;
    if (dst.isDirect()) {
      NativeApi.getOutputDirect(h, index, dst, elementSize, offset, t.byteSize());
    } else if (array != null) {
      NativeApi.getOutputArray(h, index, array, elementSize,
          (long) arrayOffset * elementSize + offset, t.byteSize());
    } else {
      // A heap view without an accessible array (a FloatBuffer over a heap
      // ByteBuffer, in either byte order): through an array, then put().
      byte[] bytes = new byte[(int) t.byteSize()];
      NativeApi.getOutputArray(h, index, bytes, 1, 0, t.byteSize());
      ByteBuffer from = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
      if (dst instanceof FloatBuffer)
        ((FloatBuffer) dst).put(from.asFloatBuffer());
      else
        ((ByteBuffer) dst).put(from);
      return;
    }
    dst.position(dst.position() + (int) (t.byteSize() / elementSize));
  }

  private static void copyInto(ByteBuffer copy, Buffer data) {
    Buffer d = duplicate(data);
    if (d instanceof FloatBuffer)
      copy.asFloatBuffer().put((FloatBuffer) d);
    else if (d instanceof IntBuffer)
      copy.asIntBuffer().put((IntBuffer) d);
    else if (d instanceof LongBuffer)
      copy.asLongBuffer().put((LongBuffer) d);
    else
      copy.put((ByteBuffer) d);
  }

  private static Buffer duplicate(Buffer b) {
    if (b instanceof FloatBuffer)
      return ((FloatBuffer) b).duplicate();
    if (b instanceof IntBuffer)
      return ((IntBuffer) b).duplicate();
    if (b instanceof LongBuffer)
      return ((LongBuffer) b).duplicate();
    return ((ByteBuffer) b).duplicate();
  }

  private static ByteOrder orderOf(Buffer b) {
    if (b instanceof FloatBuffer)
      return ((FloatBuffer) b).order();
    if (b instanceof IntBuffer)
      return ((IntBuffer) b).order();
    if (b instanceof LongBuffer)
      return ((LongBuffer) b).order();
    return ((ByteBuffer) b).order();
  }

  private static void requireNativeOrder(ByteOrder order, TensorInfo t) {
    if (order != ByteOrder.nativeOrder())
      throw new IllegalArgumentException("'" + t.name() + "': the buffer is " + order
          + ", not the platform's " + ByteOrder.nativeOrder()
          + " (make it with ByteBuffer.allocateDirect(n).order(ByteOrder.nativeOrder()))");
  }

  private static void requireType(TensorInfo t, DType type, String what) {
    if (t.dtype() != type)
      throw new IllegalArgumentException(what + " '" + t.name() + "' is " + t
          + ", not " + type.name().toLowerCase());
  }

  private static int elements(TensorInfo t, DType type) {
    requireType(t, type, "output");
    if (t.elementCount() > Integer.MAX_VALUE)
      throw new IllegalStateException("output '" + t.name() + "' exceeds a Java array");
    return (int) t.elementCount();
  }

  private static void checkFrameSize(int width, int height) {
    if (width <= 0 || height <= 0)
      throw new IllegalArgumentException("a frame of " + width + "x" + height + " pixels");
  }

  private static int indexOf(TensorInfo[] list, String name, String what) {
    for (int i = 0; i < list.length; ++i)
      if (list[i].name().equals(name))
        return i;
    throw new IllegalArgumentException("the model has no " + what + " '" + name + "'");
  }

  private static byte[] copyOf(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  private static <T> T nonNull(T value) {
    if (value == null)
      throw new NullPointerException();
    return value;
  }
}
