"""The offline phase: profile every file of a lake so agents can judge and load it.

    profile_file(path, root)          one file -> FileProfile (never raises)
    profile_lake(root, cache_dir)     every file, cached by (relpath, size, mtime_ns)
    ProfileCache(cache_dir)           cached profiles (one SQLite file): fresh, load_many, put
    iter_lake_files(root)             the lake's data files (no hidden files, caches, outside links)
    loader_code(profile, root)        Python that loads the file correctly

One reader module per kind of file (delimited, with fixed_width for text aligned with
spaces, excel, json_files, parquet, arrays, cdf, hdf5, netcdf, fits, statistical_packages, geo, html, documents, images, fallback);
detect picks one from the extension and the content. `families` groups the profiled files
that belong together (dated series, same-shaped siblings).
"""

from lakeboard.servers.profiling.cache import ProfileCache
from lakeboard.servers.profiling.lake import iter_lake_files, profile_lake
from lakeboard.servers.profiling.loader_code import loader_code
from lakeboard.servers.profiling.profile import profile_file

__all__ = ["ProfileCache", "iter_lake_files", "loader_code", "profile_file", "profile_lake"]
