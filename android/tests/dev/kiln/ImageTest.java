package dev.kiln;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import org.junit.Test;

/**
 * Camera frames through Session.setImage, byte for byte against the C API's
 * kiln_session_set_image on the same frames (kiln-image-reference), and
 * segmentation masks.
 */
public class ImageTest {
  private static final int WIDTH = 97, HEIGHT = 61, ROW_STRIDE = 400;

  private static byte[] runImage(Session session) {
    session.run();
    return session.getOutputBytes(0);
  }

  @Test
  public void describesTheImageInput() {
    try (Model model = Model.load(Fixtures.path("mnv2_rgba.kiln"))) {
      ImageInput image = model.imageInput(0);
      assertEquals(PixelFormat.RGBA8, image.format());
      assertEquals(3, image.channels());
      assertArrayEquals(new float[] {123.675f, 116.28f, 103.53f}, image.mean(), 1e-3f);
      assertArrayEquals(new float[] {58.395f, 57.12f, 57.375f}, image.std(), 1e-3f);
      assertEquals(DType.U8, model.inputInfo(0).dtype());
    }
  }

  @Test
  public void rgbaBufferEqualsTheCPath() throws Exception {
    byte[] frame = Fixtures.bytes("frame.rgba");
    ByteBuffer direct = ByteBuffer.allocateDirect(frame.length);
    direct.put(frame).flip();
    try (Model model = Model.load(Fixtures.path("mnv2_rgba.kiln"));
         Session session = model.newSession()) {
      session.setImage(0, direct, WIDTH, HEIGHT, ROW_STRIDE, PixelFormat.RGBA8, null);
      assertArrayEquals(Fixtures.bytes("image.ref.bin"), runImage(session));
      session.setImage(0, direct, WIDTH, HEIGHT, ROW_STRIDE, PixelFormat.RGBA8,
          new ImageOptions().rotation(90).centerCrop(true));
      assertArrayEquals(Fixtures.bytes("image_rot90.ref.bin"), runImage(session));
      // A heap buffer takes the array path.
      session.setImage(0, ByteBuffer.wrap(frame), WIDTH, HEIGHT, ROW_STRIDE, PixelFormat.RGBA8,
          null);
      assertArrayEquals(Fixtures.bytes("image.ref.bin"), runImage(session));
    }
  }

  @Test
  public void argbPixelsEqualTheCPath() throws Exception {
    byte[] frame = Fixtures.bytes("frame.rgba");
    // Bitmap.getPixels: 0xAARRGGBB ints, here at offset 5 with a stride of
    // 100 pixels, from the RGBA bytes the C path read.
    int offset = 5, stride = ROW_STRIDE / 4;
    int[] argb = new int[offset + HEIGHT * stride];
    for (int y = 0; y < HEIGHT; ++y)
      for (int x = 0; x < WIDTH; ++x) {
        int p = y * ROW_STRIDE + 4 * x;
        int r = frame[p] & 255, g = frame[p + 1] & 255, b = frame[p + 2] & 255,
            a = frame[p + 3] & 255;
        argb[offset + y * stride + x] = a << 24 | r << 16 | g << 8 | b;
      }
    try (Model model = Model.load(Fixtures.path("mnv2_rgba.kiln"));
         Session session = model.newSession()) {
      session.setImage(0, argb, offset, stride, WIDTH, HEIGHT, null);
      assertArrayEquals(Fixtures.bytes("image.ref.bin"), runImage(session));
      session.setImage(0, argb, offset, stride, WIDTH, HEIGHT,
          new ImageOptions().rotation(90).centerCrop(true));
      assertArrayEquals(Fixtures.bytes("image_rot90.ref.bin"), runImage(session));
    }
  }

  @Test
  public void nv21FrameEqualsTheCPath() throws Exception {
    byte[] nv21 = Fixtures.bytes("frame.nv21");
    try (Model model = Model.load(Fixtures.path("mnv2_rgba.kiln"));
         Session session = model.newSession()) {
      session.setImage(0, ByteBuffer.wrap(nv21), 96, 64, 96, PixelFormat.NV21,
          new ImageOptions().rotation(270));
      assertArrayEquals(Fixtures.bytes("nv21.ref.bin"), runImage(session));
    }
  }

  @Test
  public void segmentationMasks() throws Exception {
    byte[] street = Fixtures.bytes("street.rgba");
    byte[] reference = Fixtures.bytes("deeplab_mask.ref.bin");
    ByteBuffer frame = ByteBuffer.allocateDirect(street.length);
    frame.put(street).flip();
    try (Model masked = Model.load(Fixtures.path("deeplab_mask.kiln"));
         Model scored = Model.load(Fixtures.path("deeplab_scores.kiln"));
         Session mask = masked.newSession();
         Session scores = scored.newSession()) {
      assertEquals("out: u8[1,128,128]", mask.outputInfo(0).toString());
      mask.setImage(0, frame, 160, 120, 640, PixelFormat.RGBA8, null);
      mask.run();
      assertArrayEquals(reference, mask.getOutputBytes(0));
      assertArrayEquals("a u8 mask is returned as it is", reference, mask.argmaxMask(0));

      // The app's argmax, done by the library, over [1, 21, 128, 128] scores.
      assertEquals(DType.F32, scores.outputInfo(0).dtype());
      scores.setImage(0, frame, 160, 120, 640, PixelFormat.RGBA8, null);
      scores.run();
      byte[] fromScores = scores.argmaxMask(0);
      assertEquals(128 * 128, fromScores.length);
      int same = 0;
      int[] classes = new int[256];
      for (int i = 0; i < fromScores.length; ++i) {
        same += fromScores[i] == reference[i] ? 1 : 0;
        classes[reference[i] & 255]++;
      }
      int present = 0;
      for (int c : classes)
        present += c > 0 ? 1 : 0;
      double agreement = same / (double) fromScores.length;
      System.out.printf("DeepLabV3 mask: %d classes present; argmaxMask of the scores agrees "
          + "with the model's own argmax on %.2f%% of pixels%n", present, 100 * agreement);
      assertTrue("the mask should hold more than one class", present > 1);
      assertTrue("agreement " + agreement, agreement >= 0.999);
    }
  }

  @Test
  public void classificationArgmaxIsTheTopClass() throws Exception {
    float[] reference = Fixtures.floats("mnv2.ref.bin");
    int top = 0;
    for (int i = 1; i < reference.length; ++i)
      top = reference[i] > reference[top] ? i : top;
    try (Model model = Model.load(Fixtures.path("mnv2.kiln"));
         Session session = model.newSession()) {
      session.setInput(0, Fixtures.floats("mnv2.input.bin"));
      session.run();
      assertArrayEquals(new byte[] {(byte) top}, session.argmaxMask(0));
    }
  }
}
