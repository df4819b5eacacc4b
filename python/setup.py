# The extension module is built by kiln's CMake build, next to this file
# (kiln/_kiln.*.so); setuptools only packages it. The wheel is marked as
# platform-specific since it carries a binary.
from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(
    packages=["kiln"],
    package_data={"kiln": ["_kiln*.so", "kiln-torchscript.so"]},
    distclass=BinaryDistribution,
)
