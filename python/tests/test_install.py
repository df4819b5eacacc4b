"""The package installs with pip, offline, into a virtual environment, and
works from there."""
import os
import pathlib
import subprocess
import venv

import kiln


def test_pip_install_offline(tmp_path, mobilenet):
    package = pathlib.Path(kiln.__file__).resolve().parents[1]  # BUILD/python
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PIP_NO_INDEX"] = "1"
    r = subprocess.run([str(python), "-m", "pip", "install", "--no-build-isolation",
                        "--no-index", "--no-deps", "-q", str(package)],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    # An ONNX model, and a torch module (TorchScript: the importer plugin
    # is the package's own copy, not the build tree's).
    code = ("import kiln, os, sys, torch; r = kiln.convert(sys.argv[1], 'm.kiln'); "
            "m = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.ReLU()); "
            "t = kiln.convert(m, 't.kiln', example_input=torch.zeros(1, 1, 8, 8)); "
            "print(kiln.__file__, os.environ['KILN_TORCHSCRIPT_PLUGIN'], r['target'], t['target'])")
    env.pop("KILN_TORCHSCRIPT_PLUGIN", None)
    r = subprocess.run([str(python), "-c", code, str(mobilenet)],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    where, plugin, target, traced = r.stdout.split()
    assert where.startswith(str(env_dir)) and plugin.startswith(str(env_dir))
    assert target == "cpu" and traced == "cpu"
