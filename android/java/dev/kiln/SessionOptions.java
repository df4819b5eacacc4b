package dev.kiln;

/**
 * Options for {@link Model#newSession(SessionOptions)}, set fluently:
 * {@code new SessionOptions().threads(2).nnapiDisallowCpu(true)}.
 *
 * <p>A .kiln file is made for one target ({@code kiln convert --target}), so
 * which target runs is chosen by which file is loaded; the options of the
 * other targets are ignored. Where a device may lack Vulkan or an NNAPI
 * accelerator, create the device file's session first and fall back to the
 * CPU file on {@link KilnException.Status#UNSUPPORTED} (docs/android.md).
 */
public final class SessionOptions {
  int threads = 1;
  long maxArenaBytes;
  boolean nnapiDisallowCpu;
  String nnapiCacheDir;
  String nnapiLibrary;
  int nnapiPreference = 1;
  int vulkanDevice = -1;
  boolean vulkanFp16Arithmetic = true;
  String vulkanPipelineCacheDir;
  int vulkanRunTimeoutMs;

  /** Worker threads: 0 uses every core; 1 (the default) the calling thread. */
  public SessionOptions threads(int count) {
    if (count < 0)
      throw new IllegalArgumentException("threads must be 0 or more, not " + count);
    this.threads = count;
    return this;
  }

  /** Fail rather than allocate more than this for activations (0: no cap). */
  public SessionOptions maxArenaBytes(long bytes) {
    if (bytes < 0)
      throw new IllegalArgumentException("maxArenaBytes must be 0 or more");
    this.maxArenaBytes = bytes;
    return this;
  }

  /** NNAPI files: compile for accelerators only, never NNAPI's CPU. */
  public SessionOptions nnapiDisallowCpu(boolean disallow) {
    this.nnapiDisallowCpu = disallow;
    return this;
  }

  /** NNAPI files: where NNAPI caches compiled models (Android 10+). */
  public SessionOptions nnapiCacheDir(String folder) {
    this.nnapiCacheDir = folder;
    return this;
  }

  /** NNAPI files: the NNAPI library (default libneuralnetworks.so). */
  public SessionOptions nnapiLibrary(String path) {
    this.nnapiLibrary = path;
    return this;
  }

  /** NNAPI's compilation preference. */
  public enum NnapiPreference { LOW_POWER, FAST_SINGLE_ANSWER, SUSTAINED_SPEED }

  /** NNAPI files: the compilation preference (default FAST_SINGLE_ANSWER). */
  public SessionOptions nnapiPreference(NnapiPreference preference) {
    this.nnapiPreference = preference.ordinal();
    return this;
  }

  /** Vulkan files: the device, counting those with a compute queue. */
  public SessionOptions vulkanDevice(int index) {
    this.vulkanDevice = index;
    return this;
  }

  /**
   * Vulkan files converted with fp16: compute in fp16 where the device can
   * (true, the default), or always in fp32.
   */
  public SessionOptions vulkanFp16Arithmetic(boolean enable) {
    this.vulkanFp16Arithmetic = enable;
    return this;
  }

  /**
   * Vulkan files: how long a run waits for the GPU (0, the default: 30 s).
   * A run that takes longer throws KilnException (RUNTIME), and the session
   * is then unusable: close it and create another.
   */
  public SessionOptions vulkanRunTimeoutMs(int milliseconds) {
    if (milliseconds < 0)
      throw new IllegalArgumentException("vulkanRunTimeoutMs must be 0 or more");
    this.vulkanRunTimeoutMs = milliseconds;
    return this;
  }

  /** Vulkan files: keep compiled pipelines in this folder across runs. */
  public SessionOptions vulkanPipelineCacheDir(String folder) {
    this.vulkanPipelineCacheDir = folder;
    return this;
  }
}
