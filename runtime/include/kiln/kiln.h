/* kiln runtime: loads a .kiln model and runs it.
 *
 *   kiln_model *model;
 *   if (kiln_model_load("net.kiln", &model) != KILN_OK)
 *     fprintf(stderr, "%s\n", kiln_last_error());
 *   kiln_session_options opts;
 *   kiln_session_options_init(&opts);
 *   opts.num_threads = 1;
 *   kiln_session *session;
 *   kiln_session_create(model, &opts, &session);
 *   kiln_session_set_input(session, 0, pixels, sizeof pixels);
 *   kiln_session_run(session);
 *   const void *logits; size_t bytes;
 *   kiln_session_get_output(session, 0, &logits, &bytes);
 *   kiln_session_destroy(session);
 *   kiln_model_destroy(model);
 *
 * Every function that can fail returns a kiln_status; on failure,
 * kiln_last_error() describes the problem for the calling thread. A model is
 * verified completely when it is loaded, so a file that loads runs without
 * touching memory outside its own buffers. Models are immutable and may be
 * shared between threads; a session is used by one thread at a time.
 */
#ifndef KILN_KILN_H
#define KILN_KILN_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define KILN_API __declspec(dllexport)
#else
#define KILN_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kiln_status {
  KILN_OK = 0,
  /* A null pointer, an index out of range, a wrong byte count. */
  KILN_ERROR_INVALID_ARGUMENT = 1,
  /* The file is not a valid .kiln model (or fails verification). */
  KILN_ERROR_INVALID_MODEL = 2,
  /* The file cannot be opened, mapped or read. */
  KILN_ERROR_IO = 3,
  /* A valid model this runtime cannot run (newer schema, unknown op). */
  KILN_ERROR_UNSUPPORTED = 4,
  KILN_ERROR_OUT_OF_MEMORY = 5,
  /* A kernel failed while running (e.g. a gather index out of range). */
  KILN_ERROR_RUNTIME = 6
} kiln_status;

/* Element types; the values are the schema's (kiln.fbs DType). */
typedef enum kiln_dtype {
  KILN_DTYPE_UNKNOWN = 0,
  KILN_DTYPE_F32 = 1,
  KILN_DTYPE_F16 = 2,
  KILN_DTYPE_BF16 = 3,
  KILN_DTYPE_F64 = 4,
  KILN_DTYPE_I64 = 5,
  KILN_DTYPE_I32 = 6,
  KILN_DTYPE_I16 = 7,
  KILN_DTYPE_I8 = 8,
  KILN_DTYPE_U64 = 9,
  KILN_DTYPE_U32 = 10,
  KILN_DTYPE_U16 = 11,
  KILN_DTYPE_U8 = 12,
  KILN_DTYPE_BOOL = 13
} kiln_dtype;

/* Memory layout of a graph input or output; the values are the schema's. */
typedef enum kiln_layout {
  KILN_LAYOUT_PLAIN = 0,
  KILN_LAYOUT_NCHW = 1,
  KILN_LAYOUT_NHWC = 2
} kiln_layout;

typedef struct kiln_model kiln_model;
typedef struct kiln_session kiln_session;

/* A graph input or output. Pointers stay valid as long as the model. */
typedef struct kiln_tensor_info {
  const char *name;
  kiln_dtype dtype;
  kiln_layout layout;
  size_t rank;
  const int64_t *shape;
  size_t byte_size;
} kiln_tensor_info;

/* Options only the CPU executor reads; other targets ignore them. Appended
 * with .kiln schema 1.4, when the runtime gained an executor per target. */
typedef struct kiln_cpu_options {
  /* sizeof(kiln_cpu_options), set by kiln_cpu_options_init. */
  size_t struct_size;
  /* Non-zero: run every operator on the reference kernels (for checking
   * the XNNPACK and oneDNN paths against them). */
  uint32_t force_reference;
  /* Non-zero: no oneDNN kernels. A runtime built with oneDNN (x86) runs the
   * convolutions of a single-threaded session (num_threads 1) on it where
   * oneDNN has a JIT kernel for this CPU, and the rest on XNNPACK; with this
   * set, XNNPACK runs them too, as on a build without oneDNN. Sessions with
   * more threads always run on XNNPACK's thread pool. */
  uint32_t disable_onednn;
  /* Non-zero: the weights oneDNN's kernels convert when the session is
   * created go in chunks that ask Linux for transparent huge pages
   * (madvise MADV_HUGEPAGE), which saves TLB misses on every run. Off by
   * default: in a virtual machine that hands free memory back to its host,
   * fresh huge pages are slow to fault in, and session creation slows
   * down; worth it in a long-lived process on bare metal
   * (docs/benchmarks.md has the measurements). */
  uint32_t huge_page_weights;
} kiln_cpu_options;

/* Options only the Vulkan executor reads; other targets ignore them.
 * Appended with .kiln schema 1.5, with the Vulkan target. */
typedef struct kiln_vulkan_options {
  /* sizeof(kiln_vulkan_options), set by kiln_vulkan_options_init. */
  size_t struct_size;
  /* Which device runs the model, counting only the devices with a compute
   * queue in the Vulkan loader's order; -1 (the default): the first. */
  int32_t device_index;
  /* Non-zero: the Khronos validation layer (vulkan-validationlayers) checks
   * every Vulkan call; kiln_session_create fails with
   * KILN_ERROR_UNSUPPORTED where it is not installed. Slow: for debugging.
   * The environment variable KILN_VULKAN_VALIDATION=1 turns it on too. */
  uint32_t validation;
  /* Non-null: a folder where compiled pipelines are kept across processes,
   * one file per device and driver (kiln-<vendor>-<device>-<driver>-<uuid>
   * .vkpc); the session reads it when created and writes it back
   * atomically. The folder is created if missing; a file that is missing,
   * for another device, or unwritable only costs compile time. Copied when
   * the session is created, not kept. */
  const char *pipeline_cache_dir;
  /* Appended after pipeline_cache_dir (a caller built before passes the
   * shorter struct_size and gets AUTO). For files converted with
   * --quantize fp16: KILN_VULKAN_FP16_ARITHMETIC_AUTO (the default) runs
   * the kernels that have an fp16-arithmetic variant in fp16 where the
   * device has shaderFloat16, and in fp32 elsewhere;
   * KILN_VULKAN_FP16_ARITHMETIC_OFF always in fp32 (to compare the two, or
   * to work around a driver). The environment variable
   * KILN_VULKAN_FP16_ARITHMETIC=off does the same. */
  uint32_t fp16_arithmetic;
  /* Appended after fp16_arithmetic (schema 1.12; a caller built before
   * passes a shorter struct_size and gets AUTO).
   * KILN_VULKAN_ROBUST_BUFFER_ACCESS_AUTO (the default) enables the
   * device's robustBufferAccess where it has it; _OFF never does. kiln's
   * kernels check every index against their bindings' lengths, so they
   * stay inside them either way (docs/security.md); OFF is how tests show
   * it, and how a model runs as it would on a device without the feature.
   * The environment variable KILN_VULKAN_ROBUST_BUFFER_ACCESS=off does the
   * same. */
  uint32_t robust_buffer_access;
  /* Appended after robust_buffer_access (schema 1.13; a caller built before
   * passes a shorter struct_size and gets the default). How long a run
   * waits for the GPU, in milliseconds; 0 (the default): 30000. A run that
   * takes longer fails with KILN_ERROR_RUNTIME ("did not finish within"),
   * as does one whose device was lost, and the session is then dead: every
   * later run fails at once, and destroying it waits that long once more
   * for the GPU to finish before freeing what the GPU may still use (and
   * keeps it, leaked, if the GPU never does). The environment variable
   * KILN_VULKAN_RUN_TIMEOUT_MS does the same. */
  uint32_t run_timeout_ms;
} kiln_vulkan_options;

/* Values of kiln_vulkan_options.fp16_arithmetic. */
#define KILN_VULKAN_FP16_ARITHMETIC_AUTO 0u
#define KILN_VULKAN_FP16_ARITHMETIC_OFF 1u

/* Values of kiln_vulkan_options.robust_buffer_access. */
#define KILN_VULKAN_ROBUST_BUFFER_ACCESS_AUTO 0u
#define KILN_VULKAN_ROBUST_BUFFER_ACCESS_OFF 1u

/* Options only the NNAPI executor reads; other targets ignore them.
 * Appended with .kiln schema 1.6, with the NNAPI target. */
typedef struct kiln_nnapi_options {
  /* sizeof(kiln_nnapi_options), set by kiln_nnapi_options_init. */
  size_t struct_size;
  /* Non-null: the NNAPI library to load; null (the default): the
   * environment variable KILN_NNAPI_LIBRARY, else "libneuralnetworks.so". */
  const char *library;
  /* The compilation preference: KILN_NNAPI_PREFER_* (default
   * FAST_SINGLE_ANSWER). */
  int32_t preference;
  /* Non-zero: compile for NNAPI's devices other than its CPU only (Android
   * 10+; older NNAPI chooses its devices itself); kiln_session_create fails
   * where there is none. The environment variable KILN_NNAPI_DISALLOW_CPU=1
   * does the same. */
  uint32_t disallow_cpu;
  /* Non-null: the folder where NNAPI caches compiled models (Android 10+);
   * the environment variable KILN_NNAPI_CACHE_DIR does the same. Copied
   * when the session is created, not kept. */
  const char *cache_dir;
} kiln_nnapi_options;

/* Values of kiln_nnapi_options.preference (NNAPI's PreferenceCode). */
#define KILN_NNAPI_PREFER_LOW_POWER 0
#define KILN_NNAPI_PREFER_FAST_SINGLE_ANSWER 1
#define KILN_NNAPI_PREFER_SUSTAINED_SPEED 2

/* Options only the Metal executor reads (iOS, macOS); other targets ignore
 * them. Appended with .kiln schema 1.7, with the Metal target. */
typedef struct kiln_metal_options {
  /* sizeof(kiln_metal_options), set by kiln_metal_options_init. */
  size_t struct_size;
  /* Non-null: the path of an MTLBinaryArchive file (macOS 11+, iOS 14+;
   * ignored on older systems) where compiled pipelines are kept across
   * processes: the session looks its pipelines up there, adds the ones it
   * had to compile and writes the file back. A file that is missing,
   * unreadable or for another device only costs compile time. Copied when
   * the session is created, not kept. */
  const char *binary_archive_path;
} kiln_metal_options;

typedef struct kiln_session_options {
  /* sizeof(kiln_session_options), set by kiln_session_options_init. */
  size_t struct_size;
  /* Worker threads: 0 uses every core, 1 runs on the calling thread. */
  uint32_t num_threads;
  /* Deprecated: kiln_cpu_options.force_reference. Still read: either one
   * set turns it on. */
  uint32_t force_reference;
  /* Non-zero: kiln_session_create fails (KILN_ERROR_OUT_OF_MEMORY) rather
   * than allocate more than this many bytes for activations (the arena and
   * the kernels' scratch together). */
  uint64_t max_arena_bytes;
  /* Appended in 0.1 (a caller built before passes the shorter struct_size
   * and gets 0). Non-zero: every tensor keeps its own bytes (the memory
   * planner shares none), so kiln_session_tensor reads any operator's
   * output after a run. For debugging: the arena grows to the sum of all
   * activations. */
  uint32_t keep_intermediates;
  /* Appended in 0.1 after keep_intermediates. Deprecated:
   * kiln_cpu_options.disable_onednn. Still read: either one set turns it
   * on. */
  uint32_t disable_onednn;
  /* Appended in 0.1 after disable_onednn. Deprecated:
   * kiln_cpu_options.huge_page_weights. Still read: either one set turns it
   * on. */
  uint32_t huge_page_weights;
  /* Appended with schema 1.4 after huge_page_weights. The CPU executor's
   * options (initialized with kiln_cpu_options_init); null: its defaults.
   * Read when the session is created, not kept. */
  const kiln_cpu_options *cpu;
  /* Appended with schema 1.5 after cpu. The Vulkan executor's options
   * (initialized with kiln_vulkan_options_init); null: its defaults. Read
   * when the session is created, not kept. */
  const kiln_vulkan_options *vulkan;
  /* Appended with schema 1.6 after vulkan. The NNAPI executor's options
   * (initialized with kiln_nnapi_options_init); null: its defaults. Read
   * when the session is created, not kept. */
  const kiln_nnapi_options *nnapi;
  /* Appended with schema 1.7 after nnapi. The Metal executor's options
   * (initialized with kiln_metal_options_init); null: its defaults. Read
   * when the session is created, not kept. */
  const kiln_metal_options *metal;
  /* Appended with schema 1.7 after metal. Non-zero: kiln_session_create
   * hashes the FlatBuffer and every weight segment and compares them with
   * the xxHash64s the writer recorded, failing with
   * KILN_ERROR_INVALID_MODEL (naming the FlatBuffer, or the segment and its
   * tensors) on a mismatch, or on a file written before schema 1.7 that
   * records none. Loading checks the structure only; this reads every byte
   * of the file, each time a session is created with it (docs/format.md
   * gives the cost). `kiln verify FILE` runs the same checks offline. */
  uint32_t verify_weight_hashes;
  /* Appended with schema 1.9 after verify_weight_hashes. For a
   * batch-polymorphic model (one whose kiln_model_input_info shows a dim of
   * -1): the input shapes to size the session for, one pointer per graph
   * input (num_input_shapes, which must be the model's input count), each
   * to that input's rank dims, or null for an input whose dims the others
   * give. Null: every symbolic dim is 1. A static model accepts only its
   * own shapes. Copied when the session is created, not kept;
   * kiln_session_resize_inputs changes them later. */
  const int64_t *const *input_shapes;
  size_t num_input_shapes;
} kiln_session_options;

/* The runtime version ("0.1.0") and the .kiln schema version it reads. */
KILN_API const char *kiln_version(void);
KILN_API void kiln_schema_version(uint32_t *major, uint32_t *minor);

/* The message of the calling thread's last failure ("" if none). */
KILN_API const char *kiln_last_error(void);

/* Maps the file read-only and verifies it; weights are used in place. */
KILN_API kiln_status kiln_model_load(const char *path, kiln_model **out_model);
/* Copies size bytes from data (into 64-byte-aligned memory) and verifies
 * them; the caller may free data afterwards. */
KILN_API kiln_status kiln_model_load_buffer(const void *data, size_t size,
                                            kiln_model **out_model);
/* Runs every check kiln_model_load_buffer runs, in place (nothing is copied
 * or kept): for tools and CI that want to know whether a file would load.
 * data should be 8-byte aligned, as the bytes of a mapped file are. */
KILN_API kiln_status kiln_verify_buffer(const void *data, size_t size);

/* Which GPU kernels (Vulkan SPIR-V modules, Metal kernels) a file may
 * carry (docs/security.md). KILN_GPU_KERNELS_CATALOG, the default: only the
 * kernels this runtime was built with, checked by SHA-256 before anything
 * parses them. KILN_GPU_KERNELS_ANY_VALID: any kernel that passes the
 * loader's validation, for developers of new kernels only; a valid kernel
 * can still crash the driver or the app (out-of-bounds shared memory, a
 * driver's compiler bug; pointers made from integers stay refused). The
 * policy is process-wide and applies to files loaded after the call.
 * policy is a kiln_gpu_kernel_policy; another value is
 * KILN_ERROR_INVALID_ARGUMENT. */
typedef enum kiln_gpu_kernel_policy {
  KILN_GPU_KERNELS_CATALOG = 0,
  KILN_GPU_KERNELS_ANY_VALID = 1
} kiln_gpu_kernel_policy;
KILN_API kiln_status kiln_set_gpu_kernel_policy(int policy);

/* What kiln_verify_hashes found. Set struct_size to sizeof(kiln_hash_report)
 * first: a runtime fills only the fields that fit. */
typedef struct kiln_hash_report {
  size_t struct_size;
  /* Non-zero: the FlatBuffer records its hash, and it was compared. */
  int structure_hashed;
  /* Weight segments whose bytes were hashed and compared, and their bytes. */
  uint64_t segments_hashed;
  uint64_t bytes_hashed;
  /* Segments that record no hash: every segment of a file written before
   * schema 1.7. */
  uint64_t segments_without_hash;
  /* Damaged parts, plus, in a file of schema 1.7 or later (which records
   * every hash), parts that record none. */
  uint64_t problems;
} kiln_hash_report;

/* Runs kiln_verify_buffer's checks, then hashes the FlatBuffer and every
 * weight segment and compares each with the xxHash64 its writer recorded
 * (schema 1.7). KILN_OK when nothing is wrong; a file written before 1.7
 * records no hashes, which is not wrong, and shows in the report. Otherwise
 * KILN_ERROR_INVALID_MODEL, and kiln_last_error() lists every problem, one
 * per line, each part named (a segment with the tensors stored in it).
 * report may be null; it is zeroed, then filled once the structure
 * verifies. The same check as kiln_session_options.verify_weight_hashes,
 * which refuses a file without hashes too. */
KILN_API kiln_status kiln_verify_hashes(const void *data, size_t size,
                                        kiln_hash_report *report);
/* Sessions keep what they need of the model alive: a model may be destroyed
 * before its sessions. Null is ignored. */
KILN_API void kiln_model_destroy(kiln_model *model);

KILN_API size_t kiln_model_num_inputs(const kiln_model *model);
KILN_API size_t kiln_model_num_outputs(const kiln_model *model);
KILN_API kiln_status kiln_model_input_info(const kiln_model *model,
                                           size_t index,
                                           kiln_tensor_info *out_info);
KILN_API kiln_status kiln_model_output_info(const kiln_model *model,
                                            size_t index,
                                            kiln_tensor_info *out_info);
/* The target the model is compiled for: "cpu", "vulkan" or "nnapi" (later
 * "metal"). Every build loads (verifies) CPU, Vulkan and NNAPI files; a
 * file for another target fails to load with KILN_ERROR_UNSUPPORTED, and a
 * Vulkan or NNAPI file's session fails the same way on a runtime built
 * without that executor, or where NNAPI's library cannot be loaded. */
KILN_API const char *kiln_model_target(const kiln_model *model);
/* A metadata string: "producer", "producer_version", "target", "pipeline",
 * "source_model", "source_hash". Null for an unknown or absent key. */
KILN_API const char *kiln_model_metadata(const kiln_model *model,
                                         const char *key);

KILN_API void kiln_session_options_init(kiln_session_options *options);
KILN_API void kiln_cpu_options_init(kiln_cpu_options *options);
KILN_API void kiln_vulkan_options_init(kiln_vulkan_options *options);
KILN_API void kiln_nnapi_options_init(kiln_nnapi_options *options);
KILN_API void kiln_metal_options_init(kiln_metal_options *options);
/* Plans memory and creates every operator (XNNPACK packs its weights here).
 * options may be null (defaults). */
KILN_API kiln_status kiln_session_create(const kiln_model *model,
                                         const kiln_session_options *options,
                                         kiln_session **out_session);
KILN_API void kiln_session_destroy(kiln_session *session);

/* Batch-polymorphic models (schema 1.9): kiln_model_input_info and
 * kiln_model_output_info give -1 for each symbolic dim (a batch "N", ...)
 * and a byte_size of 0; a session has one size for each, and its own
 * kiln_session_input_info and kiln_session_output_info give the shapes and
 * byte sizes it runs at.
 *
 * kiln_session_resize_inputs sizes the session for new input shapes (as
 * kiln_session_options.input_shapes: num_inputs pointers, null for an input
 * the others determine). Every operator is checked again at the new sizes,
 * the activation memory is planned again and the kernels are set up again.
 * On the CPU the XNNPACK convolutions, deconvolutions and fully connected
 * operators whose input and output differ only in the batch keep their
 * packed weights and are only set up for the new sizes; oneDNN's
 * (single-threaded sessions) and the other kernels are created again.
 * Shapes that give the current sizes cost nothing. A plan over
 * max_arena_bytes fails with KILN_ERROR_OUT_OF_MEMORY, and shapes that do
 * not fit the model with KILN_ERROR_INVALID_ARGUMENT; either way the
 * session is unchanged. After a change, every input must be set again, and
 * pointers the session gave out (outputs, tensor info and values) are no
 * longer valid. A static model takes only its own shapes. */
KILN_API kiln_status kiln_session_resize_inputs(kiln_session *session,
                                                size_t num_inputs,
                                                const int64_t *const *shapes);
KILN_API kiln_status kiln_session_input_info(const kiln_session *session,
                                             size_t index,
                                             kiln_tensor_info *out_info);
KILN_API kiln_status kiln_session_output_info(const kiln_session *session,
                                              size_t index,
                                              kiln_tensor_info *out_info);

/* Copies exactly byte_size bytes (the input's byte_size) into input index. */
KILN_API kiln_status kiln_session_set_input(kiln_session *session, size_t index,
                                            const void *data, size_t byte_size);
/* Appended after kiln_session_set_input. The session's own bytes of input
 * index, writable, and their size (the input's byte_size): a caller that
 * fills them (a decoder, a camera callback, numpy through the Python
 * package) does what kiln_session_set_input does without its copy. The
 * input counts as set; the bytes keep what was written across runs (and
 * what kiln_session_set_input, kiln_session_set_image or
 * kiln_session_self_test write there), and stay valid until
 * kiln_session_resize_inputs changes a shape or the session is destroyed.
 * Writing them while kiln_session_run runs gives that run a torn input. */
KILN_API kiln_status kiln_session_input_buffer(kiln_session *session,
                                               size_t index, void **out_data,
                                               size_t *out_byte_size);
/* Image inputs (schema 1.10; `kiln convert --image-input NAME=FORMAT`): the
 * input is a u8 frame [N, H, W, bytes] (nv21: [N, H + H/2, W, 1]), which the
 * model converts and normalizes itself. kiln_session_set_input takes a frame
 * of exactly that size; kiln_session_set_image takes one of any size. */
typedef enum kiln_pixel_format {
  KILN_PIXEL_UNKNOWN = 0,
  KILN_PIXEL_RGB8 = 1,
  KILN_PIXEL_BGR8 = 2,
  KILN_PIXEL_RGBA8 = 3, /* Android's Bitmap.copyPixelsToBuffer (ARGB_8888) */
  KILN_PIXEL_BGRA8 = 4,
  KILN_PIXEL_GRAY8 = 5,
  KILN_PIXEL_NV21 = 6 /* Y plane, then interleaved V, U; full-range BT.601 */
} kiln_pixel_format;

typedef struct kiln_image_info {
  kiln_pixel_format format; /* the format the model reads */
  int channels;             /* the model's channels: 1 or 3 */
  int channel_bgr;          /* non-zero: the model's channels are B, G, R */
  size_t num_mean, num_std; /* 1 or channels each */
  const float *mean;        /* in 0-255 pixel units, the model's order */
  const float *std;
} kiln_image_info;

/* KILN_OK and *out_info for an image input; KILN_ERROR_INVALID_ARGUMENT for
 * an index out of range or an input that is not an image input. */
KILN_API kiln_status kiln_model_input_image(const kiln_model *model,
                                            size_t index,
                                            kiln_image_info *out_info);

typedef struct kiln_image_options {
  /* sizeof(kiln_image_options), set by kiln_image_options_init. */
  size_t struct_size;
  /* Clockwise degrees that turn the frame upright: 0, 90, 180 or 270
   * (CameraX's ImageInfo.getRotationDegrees()). */
  int rotation;
  /* Non-zero: crop the upright frame to the input's aspect ratio, centered,
   * before resizing (approximately torchvision's Resize(shorter side) +
   * CenterCrop: kiln crops first, then resizes). */
  int center_crop;
} kiln_image_options;
KILN_API void kiln_image_options_init(kiln_image_options *options);

/* Fills image input index from a frame of width x height pixels in format,
 * row_stride bytes apart (padded camera rows; nv21's two planes share it, the
 * VU plane right after the Y plane's height rows): rotated, optionally
 * cropped, and resized with bilinear interpolation and half-pixel centers
 * (PyTorch's interpolate, bilinear, align_corners=False) straight into the
 * input, rounded to bytes. An rgb8/bgr8/rgba8/bgra8/gray8 input takes a
 * frame in any of those formats or nv21 (read as RGB, or as BT.601 luma for
 * gray8); an nv21 input takes nv21 frames. The input's batch must be 1.
 * options may be null (no rotation, no crop). */
KILN_API kiln_status kiln_session_set_image(kiln_session *session, size_t index,
                                            const void *pixels, int64_t width,
                                            int64_t height, size_t row_stride,
                                            kiln_pixel_format format,
                                            const kiln_image_options *options);
KILN_API kiln_status kiln_session_run(kiln_session *session);
/* Points *data at output index; valid until the next run or destroy.
 *
 * Detections (`kiln convert --nms`, a BOX_NMS operator): a varying number
 * of boxes comes as outputs of a fixed size, the most any image can keep
 * (K, `max=`), and a count. For each batch item b:
 *   "boxes"  float [N, K, 4]   x1, y1, x2, y2 in the model's input pixels
 *   "scores" float [N, K]      highest first
 *   "labels" int32 [N, K]      class indices
 *   "count"  int32 [N]         rows 0 .. count[b] - 1 hold the detections;
 *                              the rest are 0, with label -1
 * kiln inspect lists these outputs and their shapes. */
KILN_API kiln_status kiln_session_get_output(kiln_session *session,
                                             size_t index, const void **data,
                                             size_t *byte_size);

/* One operator of a session: what it is, which kernels run it, and how
 * long it took in the last run (0 unless profiling is on). */
typedef struct kiln_operator_info {
  const char *kind; /* "CONV_2D", ... */
  const char *name; /* the source node(s), may be "" */
  int uses_xnnpack; /* Deprecated: kiln_session_operator_engine names the
                       engine on every target. 1: XNNPACK runs it. */
  double last_run_ms;
} kiln_operator_info;

KILN_API size_t kiln_session_num_operators(const kiln_session *session);
KILN_API kiln_status kiln_session_operator_info(const kiln_session *session,
                                                size_t index,
                                                kiln_operator_info *out_info);
/* The kernel library that runs operator index: "xnnpack", "onednn", "kiln"
 * (kiln's own x86 kernel for convolutions whose weights stream from memory),
 * "eigen" (f32 MATMUL, LAYER_NORM, GELU, LSTM and GRU where oneDNN is absent or
 * declines: ARM, --no-onednn), "reference", "vulkan" for every operator of a Vulkan file, or, in an NNAPI
 * file, "nnapi" (the NNAPI model) and "host" (the layout and quantization
 * steps the runtime runs around it) (a static string); null for a bad
 * index. */
KILN_API const char *kiln_session_operator_engine(const kiln_session *session,
                                                  size_t index);
/* Non-zero: every run records each operator's time (a clock read per
 * operator). */
KILN_API kiln_status kiln_session_set_profiling(kiln_session *session,
                                                int enable);
/* Bytes of the activation arena, after memory planning. */
KILN_API size_t kiln_session_arena_bytes(const kiln_session *session);
/* Bytes of working memory the session's kernels share, beside the arena
 * (e.g. the blocked copies of a Winograd convolution's input and output);
 * 0 when no kernel needs any. */
KILN_API size_t kiln_session_scratch_bytes(const kiln_session *session);

/* What a session runs on, for tools (e.g. `kiln bench`'s header). Set
 * struct_size to sizeof(kiln_engine_info) first: a runtime fills only the
 * fields that fit. Strings stay valid as long as the session. */
typedef struct kiln_engine_info {
  size_t struct_size;
  const char *target; /* "cpu", "vulkan", "nnapi" */
  /* The GPU ("llvmpipe (LLVM 15.0.6, 256 bits)", ...); "" on the CPU; for
   * NNAPI the devices compiled for ("nnapi (default devices)" where NNAPI
   * chose). */
  const char *device;
  /* GPU dispatches one run submits; 0 on the CPU. */
  uint64_t dispatches;
  /* Compute pipelines the session created; 0 on the CPU. */
  uint64_t pipelines;
  /* Bytes of the pipeline cache file the session started from
   * (kiln_vulkan_options.pipeline_cache_dir); 0: none, a cold start. */
  uint64_t pipeline_cache_bytes;
  /* Non-zero: profiled operator times (kiln_session_set_profiling) are GPU
   * timestamps around each operator's dispatches, not host clock reads. */
  uint32_t gpu_timestamps;
  /* Appended after gpu_timestamps. What the GPU computes in: "fp32", "fp16
   * storage, fp16 arithmetic", or "fp16 storage, fp32 arithmetic" with why
   * where the file could run fp16 arithmetic ("(device lacks
   * shaderFloat16)", "(fp16_arithmetic off)"); "" on the CPU. NNAPI:
   * "fp32", "fp16-relaxed" or "int8". */
  const char *precision;
  /* Appended after precision. CPU: bytes of the weights the kernels read
   * in place from the model's bytes, and bytes of the mapped file dropped
   * (whole pages) after a kernel library (XNNPACK's convolutions and fully
   * connected layers) packed those weights into memory of its own, so
   * that they are resident once. Vulkan and Metal: 0 read in place, and
   * the bytes of the mapped file dropped after the weights were copied to
   * the device's buffers. A partitioned file: the sums over its
   * partitions. A model loaded from a buffer (kiln_model_load_buffer)
   * keeps its copy: nothing is dropped. 0 on NNAPI. */
  uint64_t weights_mapped_bytes;
  uint64_t weights_released_bytes;
} kiln_engine_info;

KILN_API kiln_status kiln_session_engine_info(const kiln_session *session,
                                              kiln_engine_info *out_info);

/* Self-tests (schema 1.14; `kiln convert --self-test`): a file may carry
 * one sample per input and the outputs kiln's reference interpreter
 * computed for it, with a tolerance per output. kiln_session_self_test
 * sets every input to its sample, runs the session twice and compares:
 * a float output's error is the largest |output - reference| (infinite
 * where the output is NaN or infinite and the reference is not); an
 * integer output's is the fraction of its elements that differ. It passes
 * when every output is within its tolerance and the second run gives the
 * first run's bytes. An app can run it once at first launch on the device
 * and fall back to a CPU file when it fails (GPU drivers that compute
 * wrong, or differently on each run). It returns KILN_OK whenever the test
 * ran, passed or not; KILN_ERROR_INVALID_ARGUMENT for a file without one;
 * a run's own error (a failing driver) otherwise: treat anything but
 * KILN_OK with passed set as a failed device.
 * The session's inputs hold the samples afterwards: set them again.
 * Set struct_size to sizeof(kiln_self_test_result) first. */
typedef struct kiln_self_test_result {
  size_t struct_size;
  int passed;
  int deterministic; /* the second run gave the first run's bytes */
  /* The output whose error is largest against its tolerance: its index,
   * error and tolerance, and the error over the reference's peak magnitude
   * (integer outputs: the fraction again). */
  size_t worst_output;
  double max_error;
  double tolerance;
  double relative_error;
  /* Elements compared over every output (a large output's reference holds
   * every k-th element), and those NaN or infinite against a finite
   * reference. */
  size_t compared;
  size_t non_finite;
  double run_ms; /* the first run */
} kiln_self_test_result;

/* Non-zero when the file carries a self-test. */
KILN_API int kiln_model_has_self_test(const kiln_model *model);
KILN_API kiln_status kiln_session_self_test(kiln_session *session,
                                            kiln_self_test_result *result);

/* The partitions a session runs, in run order: a partitioned file's parts
 * (kiln convert --fallback cpu, schema 1.13), or one covering the whole
 * model for any other file. Operators are numbered across partitions as
 * kiln_session_operator_info numbers them. Times are those of the last run
 * with profiling on (kiln_session_set_profiling), 0 before one. Set
 * struct_size to sizeof(kiln_partition_info) first. */
typedef struct kiln_partition_info {
  size_t struct_size;
  const char *target; /* "cpu", "vulkan", "nnapi", "metal" */
  size_t first_operator;
  size_t num_operators;
  /* The partition's own run, and the copies of its boundary inputs from
   * the partitions before it (host to host; a GPU part then uploads them
   * inside its run), in milliseconds. */
  double last_run_ms;
  double last_transfer_ms;
} kiln_partition_info;

KILN_API size_t kiln_session_num_partitions(const kiln_session *session);
KILN_API kiln_status kiln_session_partition_info(const kiln_session *session,
                                                 size_t index,
                                                 kiln_partition_info *out_info);

/* Reading any tensor of a session (debugging, e.g. comparing every layer of
 * a compiled model with the source model):
 *
 *   for (size_t op = 0; op < kiln_session_num_operators(s); ++op)
 *     for (size_t k = 0; k < kiln_session_operator_num_outputs(s, op); ++k) {
 *       size_t t; kiln_tensor_value v;
 *       kiln_session_operator_output(s, op, k, &t);
 *       kiln_session_tensor(s, t, &v);   // v.data: v.info.byte_size bytes
 *     }
 *
 * A tensor's values in info.layout order (NHWC: [N,H,W,C] as info.shape
 * says). Quantized (int8/uint8) tensors: real = (q - zero_points[i]) *
 * scales[i], per tensor (quant_axis -1, num_scales 1) or per slice i along
 * quant_axis; num_scales is 0 for other tensors. Pointers stay valid as long
 * as the session; data holds the values of the last run. */
typedef struct kiln_tensor_value {
  kiln_tensor_info info;
  const void *data;
  size_t num_scales;
  const float *scales;
  const int64_t *zero_points;
  int32_t quant_axis;
  int32_t is_constant;
} kiln_tensor_value;

/* Every tensor of the model: constants, graph inputs and outputs, and the
 * intermediates between operators. */
KILN_API size_t kiln_session_num_tensors(const kiln_session *session);
KILN_API size_t kiln_session_operator_num_outputs(const kiln_session *session,
                                                  size_t op);
/* *out_tensor: the tensor index of output k of operator op. */
KILN_API kiln_status kiln_session_operator_output(const kiln_session *session,
                                                  size_t op, size_t k,
                                                  size_t *out_tensor);
/* Fails (KILN_ERROR_INVALID_ARGUMENT) for an intermediate of a session
 * created without keep_intermediates: its bytes are shared with others.
 * Fails (KILN_ERROR_UNSUPPORTED) for a tensor whose values the host cannot
 * see: a PACKED constant of a GPU file (its bytes are in the kernels'
 * order), or an activation the GPU program never places. A Vulkan file's
 * C4 activations read as NHWC. */
KILN_API kiln_status kiln_session_tensor(const kiln_session *session,
                                         size_t index,
                                         kiln_tensor_value *out_value);

/* Stepping through a model, for tools that compare it layer by layer with
 * a reference (`kiln diff --isolated`), in a session created with
 * keep_intermediates on the CPU target.
 *
 * kiln_session_run_operators runs operators [first, first + count) once,
 * in order, on the tensors as they are (every input must be set); running
 * 0 .. num_operators in steps computes what kiln_session_run computes.
 *
 * kiln_session_set_tensor copies exactly the tensor's byte_size bytes into
 * tensor index, in its kiln_session_tensor layout and type (quantized
 * values for an int8 tensor): a graph input (as kiln_session_set_input, in
 * any session), or an activation, which the operators that read it then
 * see in place of what its producer wrote. Constants cannot be set.
 * Stepping, or setting an activation, fails with
 * KILN_ERROR_INVALID_ARGUMENT without keep_intermediates, and with
 * KILN_ERROR_UNSUPPORTED on another target's file (its program runs as a
 * whole). */
KILN_API kiln_status kiln_session_run_operators(kiln_session *session,
                                                size_t first, size_t count);
KILN_API kiln_status kiln_session_set_tensor(kiln_session *session,
                                             size_t index, const void *data,
                                             size_t byte_size);

#ifdef __cplusplus
}
#endif

#endif /* KILN_KILN_H */
