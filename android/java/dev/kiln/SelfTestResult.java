package dev.kiln;

/**
 * What {@link Session#selfTest()} found: the file's samples run twice on the
 * session's device and compared with the references stored by
 * {@code kiln convert --self-test}. An app runs it once on a new device (at
 * first launch, or after a system update) and uses its CPU file when
 * {@link #passed()} is false.
 */
public final class SelfTestResult {
  private final boolean passed;
  private final boolean deterministic;
  private final int worstOutput;
  private final double maxError;
  private final double tolerance;
  private final double relativeError;
  private final long compared;
  private final long nonFinite;
  private final double runMs;

  SelfTestResult(double[] v) {
    passed = v[0] != 0;
    deterministic = v[1] != 0;
    worstOutput = (int) v[2];
    maxError = v[3];
    tolerance = v[4];
    relativeError = v[5];
    compared = (long) v[6];
    nonFinite = (long) v[7];
    runMs = v[8];
  }

  /** Every output within its tolerance, and the two runs identical. */
  public boolean passed() {
    return passed;
  }

  /** The second run gave the first run's bytes. */
  public boolean deterministic() {
    return deterministic;
  }

  /** The output whose error is largest against its tolerance. */
  public int worstOutput() {
    return worstOutput;
  }

  /**
   * That output's error: the largest |output - reference| (infinite where
   * the output is NaN or infinite), or for an integer output the fraction of
   * elements that differ.
   */
  public double maxError() {
    return maxError;
  }

  /** That output's tolerance. */
  public double tolerance() {
    return tolerance;
  }

  /** maxError over the reference's largest magnitude. */
  public double relativeError() {
    return relativeError;
  }

  /** Elements compared, over every output. */
  public long compared() {
    return compared;
  }

  /** Output elements NaN or infinite where the reference is finite. */
  public long nonFinite() {
    return nonFinite;
  }

  /** Milliseconds of the first run. */
  public double runMs() {
    return runMs;
  }

  @Override
  public String toString() {
    return (passed ? "passed" : "FAILED") + ": output " + worstOutput + " max error " + maxError
        + " (tolerance " + tolerance + "), " + compared + " elements compared, two runs "
        + (deterministic ? "identical" : "differ");
  }
}
