"""The offline phase: profile every file of a lake so agents can judge & load it.

    profile_file(path, root)          one file -> FileProfile (never raises)
    profile_lake(root, cache_dir)     every file, cached on (relpath, size, mtime_ns)
    ProfileCache(cache_dir)           get / load / put / remove cached profiles
    iter_lake_files(root)             the lake's data files (no hidden files, caches, outside links)
    loader_code(profile, root)        Python that loads the file correctly (main result in `data`)

One reader module per format (delimited, fixed_width, excel, json_files, parquet, arrays,
cdf, geo, html, documents, images, fallback); detect picks one from extension & content.
"""

from servers.profiling.cache import ProfileCache
from servers.profiling.lake import iter_lake_files, profile_lake
from servers.profiling.loader_code import loader_code
from servers.profiling.profile import profile_file

__all__ = ["ProfileCache", "iter_lake_files", "loader_code", "profile_file", "profile_lake"]
