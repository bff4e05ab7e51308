"""Load every plugin module found in plugins/ and let it register tools."""

import importlib.util
from pathlib import Path

from tinkerbot import tools

PLUGIN_DIR = Path(__file__).resolve().parent.parent / "plugins"


def load_plugins(plugin_dir: Path = PLUGIN_DIR) -> list[str]:
    loaded = []
    for path in sorted(plugin_dir.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"tinkerbot_plugin_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if hasattr(module, "setup"):
            module.setup(tools.register)
        loaded.append(path.stem)
    return loaded
