"""Checks kiln-android.aar as an app's build would take it.

    check_aar.py AAR ABI ELF_MACHINE --javap JAVAP --readelf READELF

- exactly AndroidManifest.xml, classes.jar and jni/ABI/libkiln_jni.so;
- the manifest names the package dev.kiln;
- classes.jar holds the public API's classes, every one a Java 8 class file
  (major version 52), and nothing else but dev/kiln classes;
- libkiln_jni.so is a 64-bit little-endian ELF shared object for
  ELF_MACHINE (183: aarch64, 62: x86-64) that exports a
  Java_dev_kiln_NativeApi_<name> for every native method of
  dev.kiln.NativeApi (as javap lists them), needs no libkiln.so (the
  runtime is inside) and no libjvm.so;
- the entries are dated 1980-01-01 (the same inputs give the same bytes).
"""
import argparse
import io
import re
import struct
import subprocess
import sys
import tempfile
import zipfile

API = ["DType", "ImageInput", "ImageOptions", "Kiln", "KilnException",
       "KilnException$Status", "Layout", "Model", "NativeApi", "PixelFormat",
       "Session", "SessionOptions", "SessionOptions$NnapiPreference", "TensorInfo"]


def fail(message):
    print("check_aar: " + message, file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("aar")
    parser.add_argument("abi")
    parser.add_argument("machine", type=int)
    parser.add_argument("--javap", required=True)
    parser.add_argument("--readelf", required=True)
    args = parser.parse_args()

    library = "jni/%s/libkiln_jni.so" % args.abi
    with zipfile.ZipFile(args.aar) as aar:
        names = sorted(aar.namelist())
        want = sorted(["AndroidManifest.xml", "classes.jar", library])
        if names != want:
            fail("entries %s, expected %s" % (names, want))
        for info in aar.infolist():
            if info.date_time[:3] != (1980, 1, 1):
                fail("%s is dated %s, not 1980-01-01" % (info.filename, info.date_time))
        manifest = aar.read("AndroidManifest.xml").decode()
        classes = aar.read("classes.jar")
        so = aar.read(library)
    if 'package="dev.kiln"' not in manifest:
        fail("the manifest does not name the package dev.kiln")

    with zipfile.ZipFile(io.BytesIO(classes)) as jar:
        entries = [n for n in jar.namelist() if not n.endswith("/")]
        for name in entries:
            if not re.fullmatch(r"dev/kiln/[A-Za-z$]+\.class", name):
                fail("classes.jar holds %s" % name)
            magic, minor, major = struct.unpack(">IHH", jar.read(name)[:8])
            if magic != 0xCAFEBABE or major != 52:
                fail("%s is not a Java 8 class file (major version %d)" % (name, major))
        missing = [c for c in API if "dev/kiln/%s.class" % c not in entries]
        if missing:
            fail("classes.jar lacks %s" % missing)
        print("classes.jar: %d Java 8 classes" % len(entries))

    if so[:4] != b"\x7fELF" or so[4] != 2 or so[5] != 1:
        fail("%s is not a 64-bit little-endian ELF file" % library)
    elf_type, machine = struct.unpack("<HH", so[16:20])
    if elf_type != 3 or machine != args.machine:
        fail("%s: ELF type %d machine %d, expected a shared object (3) for %d"
             % (library, elf_type, machine, args.machine))

    with tempfile.TemporaryDirectory() as tmp:
        jar_path, so_path = tmp + "/classes.jar", tmp + "/libkiln_jni.so"
        with open(jar_path, "wb") as f:
            f.write(classes)
        with open(so_path, "wb") as f:
            f.write(so)
        javap = subprocess.run([args.javap, "-p", "-cp", jar_path, "dev.kiln.NativeApi"],
                               check=True, capture_output=True, text=True).stdout
        natives = sorted(set(re.findall(r"\bnative\b.*?\b(\w+)\(", javap)))
        symbols = subprocess.run([args.readelf, "--dyn-syms", "-W", so_path], check=True,
                                 capture_output=True, text=True).stdout
        dynamic = subprocess.run([args.readelf, "-d", "-W", so_path], check=True,
                                 capture_output=True, text=True).stdout
    exported = set(re.findall(r"\bGLOBAL\s+DEFAULT\s+\d+\s+(Java_dev_kiln_NativeApi_\w+)",
                              symbols))
    if not natives:
        fail("javap lists no native methods of dev.kiln.NativeApi")
    absent = [n for n in natives if "Java_dev_kiln_NativeApi_" + n not in exported]
    if absent:
        fail("%s exports no entry point for %s" % (library, absent))
    needed = re.findall(r"\(NEEDED\).*\[(.+?)\]", dynamic)
    for bad in ("libkiln.so", "libjvm.so"):
        if any(n.startswith(bad) for n in needed):
            fail("%s needs %s" % (library, bad))
    print("%s: ELF machine %d, %d JNI entry points for NativeApi's %d natives; needs %s"
          % (library, machine, len(exported), len(natives), ", ".join(needed)))
    print("check_aar: ok")


if __name__ == "__main__":
    main()
