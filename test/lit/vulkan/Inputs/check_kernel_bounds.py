"""Lists every index into a storage buffer in kiln's GPU kernels that does
not go through common.glsl's LOAD or STORE (docs/security.md: the kernels
check their indices against their bindings' lengths), then counts what it
checked. Usage: check_kernel_bounds.py KERNEL_DIR"""
import pathlib
import re
import sys

DECL = re.compile(r"\bbuffer\s+\w+\s*\{\s*[\w ]+?\s+(\w+)\s*\[\s*\]\s*;\s*\}")
GUARDED = re.compile(r"\b(LOAD|STORE)\s*\(\s*(\w+)\s*,")


def strip_comments(text):
    return re.sub(r"//[^\n]*", "", text)


def with_includes(path):
    """The kernel's text with the files it includes from its folder inlined
    (int_index.glsl reads a buffer its kernel declares), less the macro
    definitions (common.glsl's LOAD and STORE themselves)."""
    text = []
    for line in path.read_text().split("\n"):
        include = re.match(r'\s*#include\s+"([\w.]+)"', line)
        if include:
            text.append(with_includes(path.parent / include.group(1)))
        elif not line.lstrip().startswith("#define"):
            text.append(line)
    return "\n".join(text)


def main(folder):
    kernels = sorted(pathlib.Path(folder).glob("*.comp"))
    buffers = guarded = raw = 0
    for path in kernels:
        lines = strip_comments(with_includes(path)).split("\n")
        names = DECL.findall("\n".join(lines))
        buffers += len(names)
        for number, line in enumerate(lines, 1):
            if DECL.search(line):
                continue
            for name in names:
                for hit in re.finditer(r"\b%s\s*\[" % re.escape(name), line):
                    raw += 1
                    print("%s:%d: '%s' indexed without LOAD or STORE: %s"
                          % (path.name, number, name, line.strip()))
                if re.search(r"\b%s\s*\.\s*length\s*\(" % re.escape(name), line):
                    raw += 1
                    print("%s:%d: '%s'.length() outside LOAD and STORE"
                          % (path.name, number, name))
            for macro, name in GUARDED.findall(line):
                if name not in names:
                    raw += 1
                    print("%s:%d: %s of '%s', which is no storage buffer"
                          % (path.name, number, macro, name))
                else:
                    guarded += 1
    print("%d kernels, %d storage buffers, %d guarded accesses, %d unguarded"
          % (len(kernels), buffers, guarded, raw))
    return 1 if raw else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
