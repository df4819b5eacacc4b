package dev.kiln;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.Test;

/** MobileNetV2 (the example model) through every input path, against `kiln run`. */
public class RunTest {
  private static final double TOLERANCE = 1e-5;

  @Test
  public void versionIsTheRuntimes() {
    assertEquals("0.1.0", Kiln.version());
  }

  @Test
  public void describesInputsAndOutputs() {
    try (Model model = Model.load(Fixtures.path("mnv2.kiln"))) {
      assertEquals(1, model.numInputs());
      assertEquals(1, model.numOutputs());
      TensorInfo in = model.inputInfo(0);
      assertEquals("input", in.name());
      assertEquals(DType.F32, in.dtype());
      assertArrayEquals(new long[] {1, 3, 64, 64}, in.shape());
      assertEquals(4L * 3 * 64 * 64, in.byteSize());
      assertEquals("logits: f32[1,10]", model.outputInfo(0).toString());
      assertEquals(null, model.imageInput(0));
    }
  }

  @Test
  public void floatArrayMatchesKilnRun() throws Exception {
    float[] input = Fixtures.floats("mnv2.input.bin");
    float[] reference = Fixtures.floats("mnv2.ref.bin");
    try (Model model = Model.load(Fixtures.path("mnv2.kiln"));
         Session session = model.newSession()) {
      assertEquals("cpu", session.target());
      session.setInput(0, input);
      session.run();
      float[] out = session.getOutputFloats(0);
      double error = Fixtures.relativeError(out, reference);
      System.out.printf("MobileNetV2, float[] input: max |diff| / max |ref| = %.3g%n", error);
      assertTrue("relative error " + error, error <= TOLERANCE);
    }
  }

  @Test
  public void torchvisionMobileNetV2MatchesKilnRunAndPyTorch() throws Exception {
    // 1x3x224x224 from a direct buffer, as an app's camera pipeline has it.
    float[] input = Fixtures.floats("mobilenet_v2.input.bin");
    FloatBuffer direct = ByteBuffer.allocateDirect(4 * input.length)
        .order(ByteOrder.nativeOrder()).asFloatBuffer();
    direct.put(input).flip();
    try (Model model = Model.load(Fixtures.path("mobilenet_v2.kiln"));
         Session session = model.newSession()) {
      assertArrayEquals(new long[] {1, 1000}, session.outputInfo(0).shape());
      session.setInput(0, direct);
      session.run();
      float[] out = session.getOutputFloats(0);
      double againstKilnRun = Fixtures.relativeError(out, Fixtures.floats("mobilenet_v2.ref.bin"));
      double againstPyTorch = Fixtures.relativeError(out, Fixtures.floats("mobilenet_v2.torch.bin"));
      System.out.printf("torchvision MobileNetV2: max |diff| / max |ref| = %.3g against kiln run, "
          + "%.3g against PyTorch%n", againstKilnRun, againstPyTorch);
      assertTrue("against kiln run: " + againstKilnRun, againstKilnRun <= TOLERANCE);
      assertTrue("against PyTorch: " + againstPyTorch, againstPyTorch <= 1e-4);
    }
  }

  @Test
  public void directBuffersGiveTheSameOutputs() throws Exception {
    float[] input = Fixtures.floats("mnv2.input.bin");
    try (Model model = Model.load(Fixtures.path("mnv2.kiln"));
         Session session = model.newSession()) {
      session.setInput(0, input);
      session.run();
      float[] fromArray = session.getOutputFloats(0);

      // A direct FloatBuffer view, read in place from its position.
      ByteBuffer bytes = ByteBuffer.allocateDirect(4 * (input.length + 3))
          .order(ByteOrder.nativeOrder());
      FloatBuffer floats = bytes.asFloatBuffer();
      floats.put(new float[] {9, 9, 9}).put(input).position(3);
      session.setInput(0, floats);
      assertEquals("the buffer's position is left as it was", 3, floats.position());
      session.run();
      FloatBuffer out = ByteBuffer.allocateDirect(4 * 12).order(ByteOrder.nativeOrder())
          .asFloatBuffer();
      out.position(2);
      session.getOutput(0, out);
      assertEquals(12, out.position());
      float[] fromDirect = new float[10];
      ((FloatBuffer) out.position(2)).get(fromDirect);
      assertArrayEquals(fromArray, fromDirect, 0f);

      // A direct ByteBuffer of raw native-order bytes.
      ByteBuffer raw = ByteBuffer.allocateDirect(4 * input.length).order(ByteOrder.nativeOrder());
      raw.asFloatBuffer().put(input);
      session.setInput(0, raw);
      session.run();
      byte[] outBytes = session.getOutputBytes(0);
      float[] fromBytes = new float[10];
      ByteBuffer.wrap(outBytes).order(ByteOrder.nativeOrder()).asFloatBuffer().get(fromBytes);
      assertArrayEquals(fromArray, fromBytes, 0f);

      // Heap views of a ByteBuffer (no accessible array), in either byte
      // order: the values arrive as floats whatever the order.
      for (ByteOrder order : new ByteOrder[] {ByteOrder.nativeOrder(), ByteOrder.BIG_ENDIAN}) {
        FloatBuffer view = ByteBuffer.allocate(40).order(order).asFloatBuffer();
        session.getOutput(0, view);
        assertEquals(10, view.position());
        float[] fromView = new float[10];
        ((FloatBuffer) view.flip()).get(fromView);
        assertArrayEquals(fromArray, fromView, 0f);
      }
    }
  }

  @Test
  public void modelFromBufferRunsAsFromFile() throws Exception {
    byte[] file = Fixtures.bytes("mnv2.kiln");
    float[] reference = Fixtures.floats("mnv2.ref.bin");
    ByteBuffer direct = ByteBuffer.allocateDirect(file.length);
    direct.put(file).flip();
    for (ByteBuffer source : new ByteBuffer[] {direct, ByteBuffer.wrap(file)}) {
      try (Model model = Model.load(source); Session session = model.newSession()) {
        session.setInput(0, Fixtures.floats("mnv2.input.bin"));
        session.run();
        assertTrue(Fixtures.relativeError(session.getOutputFloats(0), reference) <= TOLERANCE);
      }
    }
  }

  @Test
  public void sessionOutlivesItsModel() throws Exception {
    Session session;
    try (Model model = Model.load(Fixtures.path("mnv2.kiln"))) {
      session = model.newSession();
    }
    try {
      session.setInput(0, Fixtures.floats("mnv2.input.bin"));
      session.run();
      assertTrue(Fixtures.relativeError(session.getOutputFloats(0),
          Fixtures.floats("mnv2.ref.bin")) <= TOLERANCE);
    } finally {
      session.close();
    }
  }

  @Test
  public void twoSessionsOnTwoThreads() throws Exception {
    final float[] input = Fixtures.floats("mnv2.input.bin");
    final float[] reference = Fixtures.floats("mnv2.ref.bin");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (final Model model = Model.load(Fixtures.path("mnv2.kiln"))) {
      Callable<Double> worker = () -> {
        double worst = 0;
        try (Session session = model.newSession()) {
          for (int i = 0; i < 20; ++i) {
            session.setInput(0, input);
            session.run();
            worst = Math.max(worst, Fixtures.relativeError(session.getOutputFloats(0), reference));
          }
        }
        return worst;
      };
      Future<Double> a = pool.submit(worker), b = pool.submit(worker);
      assertTrue(a.get() <= TOLERANCE);
      assertTrue(b.get() <= TOLERANCE);
    } finally {
      pool.shutdown();
    }
  }
}
