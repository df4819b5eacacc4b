package dev.kiln;

/**
 * A failure reported by the kiln runtime: a file that cannot be read or is
 * not a valid model, a model this runtime cannot run, a wrong input, or a
 * kernel that failed while running. The message is kiln's own (for a file,
 * it starts with the file's path).
 *
 * <p>Unchecked, as Kotlin and Java lambdas prefer. Misuse of the API itself
 * (a closed model or session, a null argument, a buffer of the wrong size)
 * throws the usual {@link IllegalStateException},
 * {@link NullPointerException} or {@link IllegalArgumentException} instead.
 */
public class KilnException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The runtime's status codes (kiln_status in kiln/kiln.h). */
  public enum Status {
    /** A null pointer, an index out of range, a wrong byte count. */
    INVALID_ARGUMENT(1),
    /** The file is not a valid .kiln model, or fails verification. */
    INVALID_MODEL(2),
    /** The file cannot be opened, mapped or read. */
    IO(3),
    /** A valid model this runtime cannot run (newer schema, no device). */
    UNSUPPORTED(4),
    OUT_OF_MEMORY(5),
    /** A kernel failed while running. */
    RUNTIME(6);

    private final int code;

    Status(int code) {
      this.code = code;
    }

    /** The C API's value of this status. */
    public int code() {
      return code;
    }

    static Status of(int code) {
      for (Status s : values())
        if (s.code == code)
          return s;
      return RUNTIME;
    }
  }

  private final Status status;

  /** Called by the JNI library with the C API's status and message. */
  KilnException(int code, String message) {
    super(message);
    this.status = Status.of(code);
  }

  /** What kind of failure this is. */
  public Status status() {
    return status;
  }
}
