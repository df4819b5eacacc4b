package dev.kiln;

import java.nio.ByteBuffer;

/**
 * A loaded .kiln file, verified completely when loaded. Immutable: one model
 * may serve sessions on several threads. Sessions keep what they need of
 * it, so a model may be closed before its sessions.
 *
 * <pre>
 * try (Model model = Model.load(path);
 *      Session session = model.newSession(new SessionOptions().threads(2))) {
 *   session.setInput(0, pixels);
 *   session.run();
 *   float[] scores = session.getOutputFloats(0);
 * }
 * </pre>
 */
public final class Model implements AutoCloseable {
  private long handle;

  private Model(long handle) {
    this.handle = handle;
  }

  /** Maps the file read-only; the weights are used in place. */
  public static Model load(String path) {
    if (path == null)
      throw new NullPointerException("path");
    return new Model(NativeApi.modelLoad(path));
  }

  /**
   * Copies the remaining bytes of data (a file read from an app's assets,
   * say) into the runtime; the buffer may be reused afterwards. Its position
   * is left as it was.
   */
  public static Model load(ByteBuffer data) {
    if (data == null)
      throw new NullPointerException("data");
    if (data.isDirect())
      return new Model(NativeApi.modelLoadDirect(data, data.position(), data.remaining()));
    if (data.hasArray())
      return new Model(NativeApi.modelLoadArray(data.array(),
          data.arrayOffset() + data.position(), data.remaining()));
    byte[] copy = new byte[data.remaining()];
    data.duplicate().get(copy);
    return new Model(NativeApi.modelLoadArray(copy, 0, copy.length));
  }

  /** A session with the default options (one thread). */
  public Session newSession() {
    return newSession(new SessionOptions());
  }

  /** Plans memory and creates every operator. */
  public Session newSession(SessionOptions options) {
    if (options == null)
      throw new NullPointerException("options");
    synchronized (this) {
      long model = live();
      return new Session(NativeApi.sessionCreate(model, options.threads,
          options.maxArenaBytes, options.nnapiDisallowCpu, options.nnapiCacheDir,
          options.nnapiLibrary, options.nnapiPreference, options.vulkanDevice,
          options.vulkanFp16Arithmetic, options.vulkanPipelineCacheDir,
          options.vulkanRunTimeoutMs),
          NativeApi.modelNumTensors(model, false), NativeApi.modelNumTensors(model, true));
    }
  }

  public synchronized int numInputs() {
    return NativeApi.modelNumTensors(live(), false);
  }

  public synchronized int numOutputs() {
    return NativeApi.modelNumTensors(live(), true);
  }

  /** Input index; dims of a batch-polymorphic model are -1 where symbolic. */
  public synchronized TensorInfo inputInfo(int index) {
    long h = live();
    checkIndex(index, NativeApi.modelNumTensors(h, false), "input");
    return new TensorInfo(NativeApi.tensorName(h, false, false, index),
        NativeApi.tensorDesc(h, false, false, index));
  }

  public synchronized TensorInfo outputInfo(int index) {
    long h = live();
    checkIndex(index, NativeApi.modelNumTensors(h, true), "output");
    return new TensorInfo(NativeApi.tensorName(h, false, true, index),
        NativeApi.tensorDesc(h, false, true, index));
  }

  /** What image input index reads, or null where it is not an image input. */
  public synchronized ImageInput imageInput(int index) {
    long h = live();
    checkIndex(index, NativeApi.modelNumTensors(h, false), "input");
    float[] desc = NativeApi.modelImageInput(h, index);
    return desc == null ? null : new ImageInput(desc);
  }

  /** Frees the model; sessions made from it keep working. Idempotent. */
  @Override
  public synchronized void close() {
    if (handle != 0) {
      NativeApi.modelDestroy(handle);
      handle = 0;
    }
  }

  private synchronized long live() {
    if (handle == 0)
      throw new IllegalStateException("the model is closed");
    return handle;
  }

  static void checkIndex(int index, int count, String what) {
    if (index < 0 || index >= count)
      throw new IndexOutOfBoundsException(
          what + " " + index + " is out of range: the model has " + count);
  }
}
