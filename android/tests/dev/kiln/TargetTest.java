package dev.kiln;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.Test;

/**
 * The device targets' files, with their session options: Vulkan on Mesa's
 * lavapipe, NNAPI on kiln's host NNAPI device (-Dkiln.nnapi.library), whose
 * log (KILN_NNAPI_HOST_LOG) records what each compilation was asked for.
 */
public class TargetTest {
  private static final double TOLERANCE = 1e-4;

  private static float[] runOnce(Session session) throws Exception {
    session.setInput(0, Fixtures.floats("mnv2.input.bin"));
    session.run();
    return session.getOutputFloats(0);
  }

  @Test
  public void vulkanFileRunsOnTheGpuWithItsOptions() throws Exception {
    Path cache = Files.createTempDirectory("kiln-vkpc");
    try (Model model = Model.load(Fixtures.path("mnv2_vulkan.kiln"))) {
      try (Session session = model.newSession(
               new SessionOptions().vulkanPipelineCacheDir(cache.toString())
                   .vulkanFp16Arithmetic(false))) {
        assertEquals("vulkan", session.target());
        System.out.println("Vulkan device: " + session.device());
        double error = Fixtures.relativeError(runOnce(session), Fixtures.floats("mnv2.ref.bin"));
        assertTrue("relative error " + error, error <= TOLERANCE);
      }
      String[] written = cache.toFile().list();
      assertTrue("the pipeline cache folder holds a .vkpc file",
          written != null && written.length == 1 && written[0].endsWith(".vkpc"));
      // A run that takes longer than its timeout fails, and the session is
      // then dead: the next run fails at once; closing it is clean.
      try (Session slow = model.newSession(new SessionOptions().vulkanRunTimeoutMs(1))) {
        slow.setInput(0, Fixtures.floats("mnv2.input.bin"));
        KilnException late = assertThrows(KilnException.class, slow::run);
        assertEquals(KilnException.Status.RUNTIME, late.status());
        assertTrue(late.getMessage(), late.getMessage().contains("did not finish within 1 ms"));
        KilnException dead = assertThrows(KilnException.class, slow::run);
        assertTrue(dead.getMessage(), dead.getMessage().contains("unusable after an earlier run"));
      }
      KilnException noDevice = assertThrows(KilnException.class,
          () -> model.newSession(new SessionOptions().vulkanDevice(7)));
      System.out.println("Vulkan device 7: " + noDevice.getMessage());
    } finally {
      for (File f : cache.toFile().listFiles())
        f.delete();
      cache.toFile().delete();
    }
  }

  @Test
  public void nnapiOptionsReachNnapi() throws Exception {
    String library = System.getProperty("kiln.nnapi.library");
    String log = System.getenv("KILN_NNAPI_HOST_LOG");
    if (library == null || log == null)
      throw new IllegalStateException("run with -Dkiln.nnapi.library and KILN_NNAPI_HOST_LOG");
    Path logPath = Paths.get(log);
    Files.deleteIfExists(logPath);
    Path cache = Files.createTempDirectory("kiln-nnapi-cache");
    SessionOptions options = new SessionOptions().nnapiLibrary(library)
        .nnapiDisallowCpu(true).nnapiCacheDir(cache.toString())
        .nnapiPreference(SessionOptions.NnapiPreference.SUSTAINED_SPEED);
    try (Model model = Model.load(Fixtures.path("mnv2_nnapi.kiln"))) {
      for (int i = 0; i < 2; ++i) {
        try (Session session = model.newSession(options)) {
          assertEquals("nnapi", session.target());
          double error = Fixtures.relativeError(runOnce(session), Fixtures.floats("mnv2.ref.bin"));
          assertTrue("relative error " + error, error <= TOLERANCE);
        }
      }
      String asked = new String(Files.readAllBytes(logPath), StandardCharsets.UTF_8);
      System.out.print("host NNAPI device log:\n" + asked);
      assertTrue(asked, asked.contains(
          "compile devices=kiln-host-accelerator preference=2 cache=miss"));
      assertTrue(asked, asked.contains(
          "compile devices=kiln-host-accelerator preference=2 cache=hit"));

      KilnException noLibrary = assertThrows(KilnException.class,
          () -> model.newSession(new SessionOptions().nnapiLibrary("/nonexistent/libnn.so")));
      assertTrue(noLibrary.getMessage(),
          noLibrary.getMessage().contains("cannot load the NNAPI library"));
    } finally {
      for (File f : cache.toFile().listFiles())
        f.delete();
      cache.toFile().delete();
    }
  }

  /**
   * Each file's self-test (kiln convert --self-test) passes on its device,
   * and the session then runs the app's own input as before.
   */
  @Test
  public void selfTestPassesOnEachDevice() throws Exception {
    String library = System.getProperty("kiln.nnapi.library");
    if (library == null)
      throw new IllegalStateException("run with -Dkiln.nnapi.library");
    String[][] files = {{"mnv2_selftest.kiln", "cpu"}, {"mnv2_vulkan.kiln", "vulkan"},
                        {"mnv2_nnapi.kiln", "nnapi"}};
    for (String[] file : files) {
      try (Model model = Model.load(Fixtures.path(file[0]));
           Session session = model.newSession(new SessionOptions().nnapiLibrary(library))) {
        assertEquals(file[1], session.target());
        SelfTestResult result = session.selfTest();
        System.out.println(file[1] + " self-test: " + result);
        assertTrue(result.toString(), result.passed());
        assertTrue(result.deterministic());
        assertEquals(10, result.compared());
        assertTrue(result.maxError() <= result.tolerance());
        double error = Fixtures.relativeError(runOnce(session), Fixtures.floats("mnv2.ref.bin"));
        assertTrue("relative error " + error, error <= TOLERANCE);
      }
    }
  }
}
