/* run_model: the kiln runtime's C API from plain C.
 *
 *   run_model MODEL.kiln [THREADS]
 *
 * Loads the model, prints its inputs and outputs, fills every f32 input
 * with a fixed ramp (x[i] = (i % 17) / 16 - 0.5), runs it once and prints
 * the first values of every output. Built against the installed package:
 * see CMakeLists.txt (find_package(kiln)) or use pkg-config:
 *   cc run_model.c $(pkg-config --cflags --libs kiln) -o run_model
 */
#include <kiln/kiln.h>

#include <stdio.h>
#include <stdlib.h>

static void print_info(const char *what, const kiln_tensor_info *info) {
  printf("%s %s: dtype %d, shape [", what, info->name, (int)info->dtype);
  for (size_t d = 0; d < info->rank; ++d)
    printf("%s%lld", d ? "," : "", (long long)info->shape[d]);
  printf("], %zu bytes\n", info->byte_size);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.kiln [THREADS]\n", argv[0]);
    return 2;
  }
  kiln_model *model = NULL;
  if (kiln_model_load(argv[1], &model) != KILN_OK) {
    fprintf(stderr, "error: %s\n", kiln_last_error());
    return 1;
  }
  kiln_session_options options;
  kiln_session_options_init(&options);
  options.num_threads = argc > 2 ? (uint32_t)atoi(argv[2]) : 1;
  kiln_session *session = NULL;
  if (kiln_session_create(model, &options, &session) != KILN_OK) {
    fprintf(stderr, "error: %s\n", kiln_last_error());
    kiln_model_destroy(model);
    return 1;
  }
  int status = 0;
  for (size_t i = 0; i < kiln_model_num_inputs(model) && !status; ++i) {
    kiln_tensor_info info;
    kiln_model_input_info(model, i, &info);
    print_info("input", &info);
    unsigned char *data = calloc(info.byte_size ? info.byte_size : 1, 1);
    if (info.dtype == KILN_DTYPE_F32)
      for (size_t e = 0; e < info.byte_size / sizeof(float); ++e)
        ((float *)data)[e] = (float)(e % 17) / 16.0f - 0.5f;
    if (kiln_session_set_input(session, i, data, info.byte_size) != KILN_OK)
      status = 1;
    free(data);
  }
  if (!status && kiln_session_run(session) != KILN_OK)
    status = 1;
  for (size_t i = 0; i < kiln_model_num_outputs(model) && !status; ++i) {
    kiln_tensor_info info;
    const void *data;
    size_t bytes;
    kiln_model_output_info(model, i, &info);
    print_info("output", &info);
    if (kiln_session_get_output(session, i, &data, &bytes) != KILN_OK) {
      status = 1;
      break;
    }
    if (info.dtype == KILN_DTYPE_F32) {
      printf("  values:");
      for (size_t e = 0; e < bytes / sizeof(float) && e < 10; ++e)
        printf(" %.6f", ((const float *)data)[e]);
      printf("\n");
    }
  }
  if (status)
    fprintf(stderr, "error: %s\n", kiln_last_error());
  kiln_session_destroy(session);
  kiln_model_destroy(model);
  return status;
}
