import dev.kiln.ImageOptions;
import dev.kiln.Model;
import dev.kiln.PixelFormat;
import dev.kiln.Session;
import dev.kiln.SessionOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;

/**
 * DeepLabV3 on a camera frame: RGBA pixels in, a class per pixel out. The
 * model was converted with the preprocessing and the argmax compiled in:
 *
 *   kiln convert deeplab.onnx --image-input input=rgba8 \
 *       --mean 123.675,116.28,103.53 --std 58.395,57.12,57.375 \
 *       --argmax-output out -o deeplab.kiln
 *
 * so the app hands over the frame as Bitmap.copyPixelsToBuffer gives it (any
 * size; the runtime rotates, resizes and normalizes it) and reads the mask.
 */
public final class SegmentFrame implements AutoCloseable {
  private final Model model;
  private final Session session;

  public SegmentFrame(String modelPath) {
    model = Model.load(modelPath);
    session = model.newSession(new SessionOptions().threads(2));
  }

  /** One byte per model pixel: the class of each. */
  public byte[] segment(ByteBuffer rgba, int width, int height, int rotationDegrees) {
    session.setImage(0, rgba, width, height, 4 * width, PixelFormat.RGBA8,
        new ImageOptions().rotation(rotationDegrees));
    session.run();
    return session.argmaxMask(0);
  }

  @Override
  public void close() {
    session.close();
    model.close();
  }

  /** SegmentFrame MODEL FRAME.rgba WIDTH HEIGHT MASK_OUT: a frame from a file. */
  public static void main(String[] args) throws IOException {
    byte[] pixels = Files.readAllBytes(Paths.get(args[1]));
    ByteBuffer frame = ByteBuffer.allocateDirect(pixels.length);
    frame.put(pixels).flip();
    try (SegmentFrame segmenter = new SegmentFrame(args[0])) {
      byte[] mask = segmenter.segment(frame, Integer.parseInt(args[2]),
          Integer.parseInt(args[3]), 0);
      Files.write(Paths.get(args[4]), mask);
      System.out.println("mask: " + mask.length + " pixels");
    }
  }
}
