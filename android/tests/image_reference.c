/* The C path for a camera frame, which the Java tests compare with theirs:
 *
 *   kiln-image-reference MODEL FRAME WIDTH HEIGHT ROW_STRIDE FORMAT ROTATION
 *                        CENTER_CROP OUT
 *
 * loads MODEL, fills image input 0 from the raw bytes of FRAME (FORMAT is
 * kiln_pixel_format's number) with kiln_session_set_image at one thread,
 * runs, and writes output 0's bytes to OUT. */
#include <kiln/kiln.h>

#include <stdio.h>
#include <stdlib.h>

static int fail(const char *What) {
  fprintf(stderr, "kiln-image-reference: %s: %s\n", What, kiln_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 10) {
    fprintf(stderr, "usage: kiln-image-reference MODEL FRAME WIDTH HEIGHT "
                    "ROW_STRIDE FORMAT ROTATION CENTER_CROP OUT\n");
    return 2;
  }
  FILE *In = fopen(argv[2], "rb");
  if (!In)
    return perror(argv[2]), 1;
  fseek(In, 0, SEEK_END);
  long Size = ftell(In);
  fseek(In, 0, SEEK_SET);
  unsigned char *Frame = malloc((size_t)Size);
  if (!Frame || fread(Frame, 1, (size_t)Size, In) != (size_t)Size)
    return fprintf(stderr, "kiln-image-reference: cannot read %s\n", argv[2]), 1;
  fclose(In);

  kiln_model *Model;
  if (kiln_model_load(argv[1], &Model) != KILN_OK)
    return fail("load");
  kiln_session_options Options;
  kiln_session_options_init(&Options);
  Options.num_threads = 1;
  kiln_session *Session;
  if (kiln_session_create(Model, &Options, &Session) != KILN_OK)
    return fail("session");
  kiln_image_options Image;
  kiln_image_options_init(&Image);
  Image.rotation = atoi(argv[7]);
  Image.center_crop = atoi(argv[8]);
  if (kiln_session_set_image(Session, 0, Frame, atoll(argv[3]), atoll(argv[4]),
                             (size_t)atoll(argv[5]),
                             (kiln_pixel_format)atoi(argv[6]), &Image) != KILN_OK)
    return fail("set_image");
  if (kiln_session_run(Session) != KILN_OK)
    return fail("run");
  const void *Data;
  size_t Bytes;
  if (kiln_session_get_output(Session, 0, &Data, &Bytes) != KILN_OK)
    return fail("output");
  FILE *Out = fopen(argv[9], "wb");
  if (!Out || fwrite(Data, 1, Bytes, Out) != Bytes || fclose(Out) != 0)
    return perror(argv[9]), 1;
  kiln_session_destroy(Session);
  kiln_model_destroy(Model);
  free(Frame);
  return 0;
}
