package dev.kiln;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import org.junit.Test;

/** Bad files and misuse: exceptions with kiln's messages, never a crash. */
public class ErrorTest {
  @Test
  public void malformedFileNamesTheFile() {
    String path = Fixtures.path("truncated.kiln");
    KilnException e = assertThrows(KilnException.class, () -> Model.load(path));
    System.out.println("truncated file: " + e.getMessage());
    assertEquals(KilnException.Status.INVALID_MODEL, e.status());
    assertTrue(e.getMessage(), e.getMessage().startsWith(path + ": "));
  }

  @Test
  public void missingFileNamesTheFile() {
    String path = Fixtures.path("no-such-model.kiln");
    KilnException e = assertThrows(KilnException.class, () -> Model.load(path));
    assertEquals(KilnException.Status.IO, e.status());
    assertTrue(e.getMessage(), e.getMessage().contains(path));
  }

  @Test
  public void garbageBytesAreNotAModel() {
    byte[] garbage = "this is not a .kiln file, but it is long enough".getBytes();
    KilnException e = assertThrows(KilnException.class,
        () -> Model.load(ByteBuffer.wrap(garbage)));
    assertEquals(KilnException.Status.INVALID_MODEL, e.status());
  }

  @Test
  public void closedSessionThrows() throws Exception {
    Model model = Model.load(Fixtures.path("mnv2.kiln"));
    Session session = model.newSession();
    session.close();
    session.close(); // idempotent
    IllegalStateException e = assertThrows(IllegalStateException.class, session::run);
    assertEquals("the session is closed", e.getMessage());
    assertThrows(IllegalStateException.class,
        () -> session.setInput(0, Fixtures.floats("mnv2.input.bin")));
    assertThrows(IllegalStateException.class, () -> session.getOutputFloats(0));
    assertThrows(IllegalStateException.class, () -> session.argmaxMask(0));
    assertThrows(IllegalStateException.class, session::selfTest);
    model.close();
    assertThrows(IllegalStateException.class, model::newSession);
    assertThrows(IllegalStateException.class, model::numInputs);
  }

  @Test
  public void selfTestOfAFileWithoutOneThrows() throws Exception {
    try (Model model = Model.load(Fixtures.path("mnv2.kiln"));
         Session session = model.newSession()) {
      KilnException e = assertThrows(KilnException.class, session::selfTest);
      assertEquals(KilnException.Status.INVALID_ARGUMENT, e.status());
      assertTrue(e.getMessage(), e.getMessage().contains("kiln convert --self-test"));
    }
  }

  @Test
  public void wrongInputsAreRefusedBeforeTheRuntime() throws Exception {
    try (Model model = Model.load(Fixtures.path("mnv2.kiln"));
         Session session = model.newSession()) {
      IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
          () -> session.setInput(0, new float[10]));
      assertTrue(size.getMessage(), size.getMessage().contains("takes 49152 bytes"));
      assertThrows(IllegalArgumentException.class, () -> session.setInput(0, new int[12288]));
      FloatBuffer bigEndian = ByteBuffer.allocateDirect(49152).order(ByteOrder.BIG_ENDIAN)
          .asFloatBuffer();
      if (ByteOrder.nativeOrder() != ByteOrder.BIG_ENDIAN) {
        IllegalArgumentException order = assertThrows(IllegalArgumentException.class,
            () -> session.setInput(0, bigEndian));
        assertTrue(order.getMessage(), order.getMessage().contains("nativeOrder"));
      }
      assertThrows(IndexOutOfBoundsException.class, () -> session.setInput(1, new float[12288]));
      assertThrows(IndexOutOfBoundsException.class, () -> session.getOutputFloats(-1));
      assertThrows(NullPointerException.class, () -> session.setInput(0, (float[]) null));
      KilnException notImage = assertThrows(KilnException.class,
          () -> session.setImage(0, new int[16], 0, 4, 4, 4, null));
      assertEquals(KilnException.Status.INVALID_ARGUMENT, notImage.status());
      assertTrue(notImage.getMessage(), notImage.getMessage().contains("not an image input"));
    }
  }

  @Test
  public void framesThatDoNotFitAreRefused() {
    try (Model model = Model.load(Fixtures.path("mnv2_rgba.kiln"));
         Session session = model.newSession()) {
      ByteBuffer small = ByteBuffer.allocateDirect(100 * 4 * 10);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> session.setImage(0, small, 100, 11, 400, PixelFormat.RGBA8, null));
      assertTrue(e.getMessage(), e.getMessage().contains("needs 4400 bytes"));
      assertThrows(IllegalArgumentException.class,
          () -> session.setImage(0, small, 100, 10, 399, PixelFormat.RGBA8, null));
      assertThrows(IllegalArgumentException.class,
          () -> session.setImage(0, new int[99], 0, 10, 10, 10, null));
      assertThrows(IllegalArgumentException.class, () -> new ImageOptions().rotation(45));
      // A stride whose byte count would overflow an int.
      assertThrows(IllegalArgumentException.class,
          () -> session.setImage(0, new int[99], 0, 0x40000001, 10, 1, null));
      // Odd NV21 sizes fit the buffer but not the format: the runtime says so.
      KilnException odd = assertThrows(KilnException.class,
          () -> session.setImage(0, ByteBuffer.allocate(64 * 64), 33, 32, 33,
              PixelFormat.NV21, null));
      assertEquals(KilnException.Status.INVALID_ARGUMENT, odd.status());
    }
  }
}
