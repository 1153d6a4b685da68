"""codur's settings: one pydantic-settings class and where its values come from.

- :mod:`codur.config.settings`: :class:`CodurConfig` (every setting, its default and its
  check) and :class:`ConfigError`;
- :mod:`codur.config.tables`: its tables (model profiles, ``[local]``, ``[storage]``, agents)
  and the one view of the run's limits (``RuntimeLimits``);
- :mod:`codur.config.sources`: the config files and the order they are read in;
- :mod:`codur.config.origins`: where each value came from, and ``CODUR_*`` variables that are
  no setting;
- :mod:`codur.config.trust`: which settings a repo's file may choose, and ``codur trust``;
- :mod:`codur.config.endpoint`: the model an endpoint serves;
- :mod:`codur.config.load`: :func:`load_config`, the settings for a repo.

The package's public names are :class:`CodurConfig`, :class:`ConfigError` and
:func:`load_config`, imported on first use (PEP 562): a module that needs only the tables or
the trust store does not load pydantic-settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codur._lazy import lazy_exports

if TYPE_CHECKING:
    from codur.config.load import load_config
    from codur.config.settings import CodurConfig, ConfigError

__all__ = ["CodurConfig", "ConfigError", "load_config"]

__getattr__ = lazy_exports("codur.config", {"CodurConfig": "codur.config.settings",
                                            "ConfigError": "codur.config.settings",
                                            "load_config": "codur.config.load"}, globals())
