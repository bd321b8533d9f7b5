"""Guard files, from their text to what the engine is built from: the one-way pipeline of a guard file.

- ``reading``: a guard file or template read safely (regular files only, bounded, UTF-8);
- ``document``: YAML text → a positioned document (plain values plus the line and column of every node; the only
  module that sees ruamel.yaml);
- ``schema``: the JSON Schema of guard files, assembled from the kinds' own ``config`` schemas;
- ``check``: the schema check, every error worded by us and positioned;
- ``diagnostics``: a problem as ``path:line:col: message``, and ``ConfigError`` carrying all of a file's problems;
- ``config``: a schema-valid file as frozen values, the only form the kinds and the engine see;
- ``templates``: the reminder templates per locale, sandboxed Jinja2, checked in full at load;
- ``loader``: the whole pipeline, ``load()`` to an ``Engine``, every problem of a file in one run;
- ``compiled``: a checked file cached as JSON, so that a hook process builds its engine without the pipeline.

Nothing is imported here: a hook that builds its engine from the compiled cache must not pay for the YAML reader,
the schema check or Jinja2.
"""
