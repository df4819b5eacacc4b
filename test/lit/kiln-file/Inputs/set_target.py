"""Copies a .kiln file with Model.target (schema 1.4) set to a value, by
walking the FlatBuffer's vtable by hand (independent of kiln's code):
  set_target.py IN OUT VALUE"""
import struct
import sys

TARGET_FIELD = 8  # schema_major, schema_minor, metadata, tensors, operators,
                  # inputs, outputs, buffers, target

src, dst, value = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = bytearray(open(src, 'rb').read())
table = struct.unpack_from('<I', data, 0)[0]
vtable = table - struct.unpack_from('<i', data, table)[0]
vtable_size = struct.unpack_from('<H', data, vtable)[0]
entry = vtable + 4 + 2 * TARGET_FIELD
if entry + 2 > vtable + vtable_size:
    sys.exit('the file has no target field (schema before 1.4?)')
field = struct.unpack_from('<H', data, entry)[0]
if field == 0:
    sys.exit('the target field is absent')
print('target was', data[table + field], 'now', value)
data[table + field] = value
open(dst, 'wb').write(bytes(data))
