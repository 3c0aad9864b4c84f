"""Indexing a lake in object storage: a generated bucket on a local S3 server, on Dask and from a folder.

    python benchmarks/bench_object_store.py [--objects 20000] [--work DIR] [--keep]

The lake is the many-folders lake of `make_folders_lake.py` scaled to --objects files (as
bench_scale.py makes it). It is uploaded to moto's S3 server, started as its own process on
127.0.0.1, and indexed from scratch four ways, each into an empty config folder:
- the folder itself, with 2 local profiling processes (`--workers 2`);
- the bucket, read here and profiled by 2 local processes (no Dask);
- the bucket on a local Dask cluster of 1 worker, then of 2 (`--dask local --workers N`).
For each: wall time, objects per second, the read-and-profile phase alone (what Dask
distributes; the partitioning and search index after it run in the indexer), bytes read per
object (the replica's manifest), and the peak memory of the indexer and every process under
it (summed RSS, sampled every 0.2 s). Prints a table, the ratios, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import make_folders_lake  # noqa: E402
from benchmarks.bench_scale import spec_for  # noqa: E402

KEY, SECRET = "AKIABENCHMARK", "bench-secret"
RUNS = {  # name: (label, lake, indexer flags)
    "folder": ("folder, 2 local processes", "FOLDER", ["--workers", "2"]),
    "here": ("bucket, read here, 2 local processes", "s3://bench/lake", ["--workers", "2"]),
    "dask1": ("bucket, Dask, 1 worker", "s3://bench/lake", ["--dask", "local", "--workers", "1"]),
    "dask2": ("bucket, Dask, 2 workers", "s3://bench/lake", ["--dask", "local", "--workers", "2"]),
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_s3() -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("moto's S3 server did not start")


def upload(folder: Path, endpoint: str, bucket: str) -> float:
    import s3fs

    fs = s3fs.S3FileSystem(key=KEY, secret=SECRET, endpoint_url=endpoint)
    fs.mkdir(bucket)
    files = [f for f in sorted(folder.rglob("*")) if f.is_file()]
    t0 = time.perf_counter()
    for i in range(0, len(files), 500):
        fs.pipe({f"{bucket}/lake/{f.relative_to(folder).as_posix()}": f.read_bytes() for f in files[i:i + 500]})
    return time.perf_counter() - t0


class PeakMemory:
    """The highest summed RSS of a process and all under it, sampled in a thread."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            try:
                root = psutil.Process(self.pid)
                procs = [root, *root.children(recursive=True)]
            except psutil.Error:
                continue
            total = 0
            for p in procs:
                try:
                    total += p.memory_info().rss
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def index(lake: str, out: Path, extra: list[str], env: dict[str, str]) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-P", "-m", "lakeboard.servers.indexing", lake, "--out", str(out),
                             "--name", "bench", *extra], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    memory = PeakMemory(proc.pid)
    stdout, stderr = proc.communicate()
    wall = time.perf_counter() - t0
    peak = memory.stop()
    if proc.returncode != 0:
        raise RuntimeError(f"index of {lake} failed: {stderr[-2000:]}")
    files = int(re.search(r"indexed (\d+) files", stdout).group(1))
    read = re.search(r"read in ([\d.]+) s", stdout)
    manifest = out / "bench" / "replica" / "manifest.json"
    per_object = [o["bytes_read"] for o in json.loads(manifest.read_text())["objects"].values()] if manifest.exists() else []
    return {"wall_s": wall, "files": files, "objects_per_s": files / wall, "peak_rss": peak,
            "read_and_profile_s": float(read.group(1)) if read else None,
            "bytes_per_object": {"median": statistics.median(per_object), "mean": statistics.fmean(per_object),
                                 "max": max(per_object)} if per_object else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--objects", type=int, default=20000)
    ap.add_argument("--work", type=Path)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--runs", nargs="+", choices=list(RUNS), default=list(RUNS), help="which indexes to run")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="lakeboard-bench-s3-"))
    work.mkdir(parents=True, exist_ok=True)
    lake = work / "lake"
    if not lake.is_dir():
        make_folders_lake.generate(lake, spec_for(args.objects), log=lambda _: None)
    n = sum(1 for f in lake.rglob("*") if f.is_file())
    server, endpoint = start_s3()
    try:
        up = upload(lake, endpoint, "bench")
        print(f"{n} objects uploaded to moto's S3 server in {up:.0f} s", flush=True)
        env = {**os.environ, "AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET, "HF_HUB_OFFLINE": "1",
               "LAKEBOARD_STORAGE_OPTIONS": json.dumps({"endpoint_url": endpoint})}
        runs = {}
        for key in args.runs:
            label, target, extra = RUNS[key]
            target = str(lake) if target == "FOLDER" else target
            runs[label] = r = index(target, work / "configs" / key, extra, env)
            phase = f"{r['read_and_profile_s']:.1f} s" if r["read_and_profile_s"] is not None else "-"
            print(f"{label:40s} {r['wall_s']:7.1f} s  {r['objects_per_s']:6.1f} objects/s  read+profile {phase:>8s}  "
                  f"peak {r['peak_rss'] / 2**30:.2f} GB"
                  + (f"  bytes/object median {r['bytes_per_object']['median']:,.0f} max {r['bytes_per_object']['max']:,}"
                     if r["bytes_per_object"] else ""), flush=True)
    finally:
        server.kill()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    one, two, folder = (runs.get(RUNS[k][0]) for k in ("dask1", "dask2", "folder"))
    ratios = {}
    if one and two:
        ratios["dask_2_vs_1_whole_index"] = one["wall_s"] / two["wall_s"]
        ratios["dask_2_vs_1_read_and_profile"] = one["read_and_profile_s"] / two["read_and_profile_s"]
    if folder and two:
        ratios["bucket_dask2_vs_folder"] = folder["wall_s"] / two["wall_s"]
    for k, v in ratios.items():
        print(f"{k}: {v:.2f}x")
    print(json.dumps({"objects": n, "upload_s": up, "runs": runs, "ratios": ratios}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
