#!/usr/bin/env python3
"""tests/grading/leftovers.py — what a grading left behind that it must not have.

    tests/grading/leftovers.py snapshot FILE --kit ROOT --class DIR
    tools/grade DIR --out OUT ...
    tests/grading/leftovers.py check FILE --kit ROOT --class DIR --out OUT [--ignore GLOB ...]

`snapshot` records, before the grading, what `check` compares with after it:

- the kit: every tracked file (`git ls-files`: mode and sha256, a link's target) and the
  names of the untracked, not ignored ones: after grading, no tracked file changed, went or
  came, and no new untracked file (a forged gradebook.csv written into the kit) appeared; a
  kit that is not a git checkout (the grader's export, OUT/.kit-src) is compared entry by
  entry, as the class is;
- the class: every entry under DIR, without following a link and without opening a FIFO or a
  device: its type, mode, owner, size, and a sha256 of a regular file's bytes (for a file over
  1 MiB, of its size and mtime: a 3 GiB sparse file is never read): byte for byte unchanged;
- the names at the top of /tmp, /var/tmp, /dev/shm and /run/lock: nothing new there after
  grading but what the grader keeps (its uid locks, /dev/shm/attn-grade-uids), OUT itself or its
  ancestors, and names matching --ignore (a busy machine's own temporary files).

and `check` also looks, after the grading, for anything of the sandbox's throwaway uids
(61000-61999, tools/grader/sandbox.py's UID_BASE; owner or group): a process; a SysV shared
memory segment, message queue or semaphore set (/proc/sysvipc, which `ipcs` reads); a POSIX
message queue (in /dev/mqueue where mounted, else, as root, in an mqueue file system mounted in
a mount namespace of its own); a file anywhere on the root file system or in /dev/shm, /run,
/tmp, /var/tmp (`find -xdev`, OUT and /proc left out). What was already there at the snapshot
(another grader's, an earlier test's) is said on stderr and not counted, nor is anything of a
uid another grader running now holds (its lock taken: a chroot's grader beside this one).

Exits 1 with one line per leftover on stdout, else 0 with one line saying none. Run both as
root (the sandbox's files are not all readable otherwise). Standard library only.
"""

from __future__ import annotations

import argparse
import fcntl
import fnmatch
import hashlib
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

UID_FIRST, UID_LAST = 61000, 61999  # tools/grader/sandbox.py: UID_BASE, UID_BASE + UID_COUNT - 1
TEMP_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
# The grader's uid locks (root's; tools/grader/sandbox.py's LOCKS).
GRADER_KEEPS = ("/dev/shm/attn-grade-uids", "/tmp/attn-grade-uids")
FIND_ROOTS = ("/", "/tmp", "/var/tmp", "/dev/shm", "/run", "/run/lock")
HASHED_BYTES = 1 << 20  # files up to 1 MiB are hashed; larger ones by size and mtime
SHOWN = 20  # leftovers shown per kind before "... and N more"


def sandbox_id(number) -> bool:
    try:
        return UID_FIRST <= int(number) <= UID_LAST
    except (TypeError, ValueError):
        return False


def name_of(raw: bytes) -> str:
    """A path as JSON can hold it (non-UTF-8 bytes as surrogates) and a line can show it."""
    return os.fsdecode(raw)


def shown(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace") \
        .replace("\n", "\\n").replace("\t", "\\t")


# ---- the kit and the class: what must be byte for byte unchanged ---------------------------

def file_digest(path: bytes, info: os.stat_result) -> str:
    """sha256 of a regular file's bytes (opened without following a link, never blocking), or
    of its size and mtime when it is over HASHED_BYTES."""
    if info.st_size > HASHED_BYTES:
        return f"size={info.st_size},mtime={info.st_mtime_ns}"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        return f"unreadable ({error.strerror})"
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or now.st_ino != info.st_ino:
            return "changed while read"
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 16):
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)


def entry_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISLNK, "link"), (stat.S_ISDIR, "folder"), (stat.S_ISREG, "file"),
                       (stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISCHR, "char-device"), (stat.S_ISBLK, "block-device")):
        if test(mode):
            return kind
    return "other"


def describe(path: bytes, info: os.stat_result) -> dict:
    kind = entry_kind(info.st_mode)
    entry = {"kind": kind, "mode": oct(stat.S_IMODE(info.st_mode)),
             "owner": f"{info.st_uid}:{info.st_gid}"}
    if kind == "file":
        entry["size"] = info.st_size
        entry["digest"] = file_digest(path, info)
    elif kind == "link":
        entry["target"] = name_of(os.readlink(path))
    return entry


def class_state(folder: Path) -> dict:
    """{relative path: entry} of everything under the class folder, no link followed."""
    state = {}
    top = os.fsencode(folder)

    def walk(path: bytes, relative: bytes):
        try:
            with os.scandir(path) as entries:
                names = sorted(entry.name for entry in entries)
        except OSError as error:
            state[name_of(relative) + "/"] = {"kind": f"unlistable ({error.strerror})"}
            return
        for name in names:
            full = os.path.join(path, name)
            rel = os.path.join(relative, name) if relative else name
            try:
                info = os.lstat(full)
            except OSError as error:
                state[name_of(rel)] = {"kind": f"unreadable ({error.strerror})"}
                continue
            state[name_of(rel)] = describe(full, info)
            if stat.S_ISDIR(info.st_mode):
                walk(full, rel)

    walk(top, b"")
    return state


def git_files(kit: Path, *options) -> list:
    done = subprocess.run(["git", "-C", str(kit), "ls-files", "-z", *options],
                          capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"leftovers: {kit} is not a git checkout (git ls-files: "
                         f"{done.stderr.decode(errors='replace').strip()[:200]})")
    return [name_of(raw) for raw in done.stdout.split(b"\0") if raw]


def kit_state(kit: Path) -> dict:
    """A git checkout: its tracked files and the names of its untracked ones. A kit that is no
    checkout (the grader's export of HEAD, OUT/.kit-src): every entry, as for the class."""
    if not (kit / ".git").exists():
        return {"tree": class_state(kit)}
    tracked = {}
    for name in git_files(kit):
        path = os.fsencode(kit / name)
        try:
            tracked[name] = describe(path, os.lstat(path))
        except FileNotFoundError:
            tracked[name] = {"kind": "missing"}
        tracked[name].pop("owner", None)  # a checkout's owner is not the grader's business
    return {"tracked": tracked, "untracked": sorted(git_files(kit, "--others",
                                                              "--exclude-standard"))}


def temp_names() -> dict:
    names = {}
    for folder in TEMP_FOLDERS:
        try:
            names[folder] = sorted(name_of(raw) for raw in os.listdir(os.fsencode(folder)))
        except OSError:
            names[folder] = []
    return names


# ---- the sandbox's uids: nothing of theirs may outlive the grading --------------------------

def uids_in_use() -> set:
    """The sandbox uids another grader holds now (their lock taken, GRADER_KEEPS): what runs
    or lies under them is that grader's work, not a leftover of the one checked, which has
    ended and released its own (two graders at once: a class's shards, a chroot's grader beside
    the host's, as in CI)."""
    busy = set()
    for folder in GRADER_KEEPS:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in filter(sandbox_id, names):
            try:
                lock = os.open(os.path.join(folder, name), os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                busy.add(int(name))
            finally:
                os.close(lock)
    return busy


def sandbox_processes() -> list:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as status:
                fields = dict(line.rstrip("\n").split(":\t", 1) for line in status if ":\t" in line)
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                command = cmdline.read(300).replace(b"\0", b" ").strip()
        except OSError:
            continue  # gone meanwhile
        ids = fields.get("Uid", "").split() + fields.get("Gid", "").split()
        if any(sandbox_id(number) for number in ids):
            found.append(f"process {pid} (uid {fields.get('Uid', '?').split()[0]}): "
                         f"{name_of(command) or fields.get('Name', '?')}")
    return found


def sysv_objects() -> list:
    """SysV IPC objects of a sandbox uid (owner or creator), from /proc/sysvipc, else ipcs."""
    found = []
    for kind in ("shm", "msg", "sem"):
        path = Path("/proc/sysvipc") / kind
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        if not lines:
            continue
        header = lines[0].split()
        for line in lines[1:]:
            row = dict(zip(header, line.split()))
            owners = [row.get(column) for column in ("uid", "cuid", "gid", "cgid")]
            if any(sandbox_id(owner) for owner in owners):
                ident = row.get("shmid") or row.get("msqid") or row.get("semid") or "?"
                key = int(row.get("key", "0")) & 0xFFFFFFFF
                found.append(f"SysV {kind} id {ident} (key 0x{key:08x}, uid {row.get('uid')}, "
                             f"creator {row.get('cuid')})")
    if not Path("/proc/sysvipc").is_dir():
        found += ipcs_objects()
    return found


def ipcs_objects() -> list:
    found = []
    for option, kind in (("-m", "shm"), ("-q", "msg"), ("-s", "sem")):
        done = subprocess.run(["ipcs", option, "-c"], capture_output=True, text=True)
        for line in done.stdout.splitlines():
            parts = line.split()
            if parts and parts[0].isdigit() and any(sandbox_id(p) for p in parts[2:6]):
                found.append(f"SysV {kind} id {parts[0]} (ipcs: {line.strip()})")
    return found


def mqueue_mounts() -> list:
    try:
        with open("/proc/self/mounts", encoding="utf-8") as mounts:
            return [line.split()[1] for line in mounts if line.split()[2:3] == ["mqueue"]]
    except OSError:
        return []


MQUEUE_LISTER = (  # in a mount namespace of its own: nothing is mounted on the machine
    'mount -t tmpfs attn-leftovers /mnt && mkdir /mnt/q && mount -t mqueue mqueue /mnt/q && '
    'find /mnt/q -mindepth 1 -printf "%U %G %f\\n"')


def posix_queues() -> tuple:
    """(POSIX message queues of a sandbox uid, or a note on why none could be looked at)."""
    rows = []
    mounts = mqueue_mounts()
    if mounts:
        for mount in mounts:
            for name in os.listdir(mount):
                info = os.lstat(os.path.join(mount, name))
                rows.append((info.st_uid, info.st_gid, name))
    elif os.geteuid() == 0:
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", "--",
                               "sh", "-c", MQUEUE_LISTER], capture_output=True, text=True)
        if done.returncode != 0:
            return [], f"POSIX message queues not looked at: {done.stderr.strip()[:200]}"
        for line in done.stdout.splitlines():
            uid, gid, name = line.split(" ", 2)
            rows.append((uid, gid, name))
    else:
        return [], "POSIX message queues not looked at: no /dev/mqueue and not root"
    return [f"POSIX message queue /{name} (uid {uid})" for uid, gid, name in rows
            if sandbox_id(uid) or sandbox_id(gid)], ""


def sandbox_files(out: Path | None) -> list:
    """Every file or folder a sandbox uid (or gid) owns on the root file system, /tmp,
    /var/tmp, /dev/shm or /run (each start point's own file system only), OUT and /proc aside."""
    roots, devices = [], set()
    for root in FIND_ROOTS:
        try:
            device = os.stat(root).st_dev
        except OSError:
            continue
        if device not in devices:
            devices.add(device)
            roots.append(root)
    prune = ["-path", "/proc", "-o", "-path", "/sys"]
    if out is not None:
        prune += ["-o", "-path", str(out)]
    owned = ["(", "-uid", f"+{UID_FIRST - 1}", "-uid", f"-{UID_LAST + 1}", ")", "-o",
             "(", "-gid", f"+{UID_FIRST - 1}", "-gid", f"-{UID_LAST + 1}", ")"]
    done = subprocess.run(["find", *roots, "-xdev", "(", *prune, ")", "-prune", "-o",
                           "(", *owned, ")", "-printf", "%U %p\\0"], capture_output=True)
    found = []
    for raw in done.stdout.split(b"\0"):
        if raw:
            uid, _, path = raw.partition(b" ")
            found.append(f"file {name_of(path)} (uid {uid.decode()})")
    return sorted(set(found))


# Where the collectors above name an item's uids: "process P (uid U): ...", "... (uid U)",
# "... uid U, creator C)" (the end is the kit's own words; a path before it is anyone's).
ITEM_UIDS = re.compile(r"^process \d+ \(uid (\d+)\)|uid (\d+), creator (\d+)\)$|\(uid (\d+)\)$")


def uids_of(item: str) -> set:
    found = ITEM_UIDS.search(item)
    return {int(uid) for uid in found.groups() if uid} if found else set()


def sandbox_state(out: Path | None) -> dict:
    """Everything of a sandbox uid, less what is another running grader's: what lies under a
    uid held before or after the look (uids_in_use), and what is gone on a second look. A
    grader beside this one (a chroot's, in CI) can take a uid after the locks were read and
    compile in it during the look; it ends its work before it releases the uid, and a
    leftover stays."""
    def look() -> dict:
        queues, note = posix_queues()
        return {"processes": sandbox_processes(), "sysv": sysv_objects(), "mqueue": queues,
                "files": sandbox_files(out), "notes": [note] if note else []}

    def ours(found: list) -> list:
        return [item for item in found if not busy & uids_of(item)]
    busy = uids_in_use()
    first = look()
    busy |= uids_in_use()
    state = {kind: found if kind == "notes" else ours(found) for kind, found in first.items()}
    if any(state[kind] for kind in state if kind != "notes"):
        again = look()
        busy |= uids_in_use()
        state = {kind: found if kind == "notes" else
                 [item for item in ours(found) if item in again[kind]]
                 for kind, found in state.items()}
    return state


# ---- snapshot and check ---------------------------------------------------------------------

def snapshot(args) -> int:
    if not args.class_dir.is_dir():
        print(f"leftovers: no class folder {args.class_dir}", file=sys.stderr)
        return 2
    state = {"kit": kit_state(args.kit), "class": class_state(args.class_dir),
             "temp": temp_names(), "sandbox": sandbox_state(None)}
    args.file.write_text(json.dumps(state, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    already = sum(len(v) for k, v in state["sandbox"].items() if k != "notes")
    kit_entries = state["kit"].get("tracked", state["kit"].get("tree"))
    print(f"leftovers: snapshot of {len(kit_entries)} kit entries, "
          f"{len(state['class'])} class entries in {args.file}"
          + (f"; {already} things of the sandbox uids already there (not counted later)"
             if already else ""))
    return 0


def compare(before: dict, after: dict, what: str) -> list:
    lines = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        if old is None:
            lines.append(f"{what}: new {shown(name)} ({new.get('kind')})")
        elif new is None:
            lines.append(f"{what}: gone {shown(name)} (was {old.get('kind')})")
        else:
            keys = sorted(key for key in set(old) | set(new) if old.get(key) != new.get(key))
            changed = ", ".join(f"{key} {old.get(key)} -> {new.get(key)}" for key in keys)
            lines.append(f"{what}: changed {shown(name)}: {changed}")
    return lines


def ancestors_and_self(path: Path) -> set:
    return {str(path)} | {str(parent) for parent in path.parents}


def check(args) -> int:
    before = json.loads(args.file.read_text(encoding="utf-8"))
    out = args.out.resolve() if args.out else None
    leftovers = []

    kit = kit_state(args.kit)
    if "tree" in kit:
        leftovers += compare(before["kit"]["tree"], kit["tree"], "kit")
    else:
        leftovers += compare(before["kit"]["tracked"], kit["tracked"], "kit file")
        leftovers += [f"kit: new untracked file {shown(name)}"
                      for name in sorted(set(kit["untracked"]) - set(before["kit"]["untracked"]))]
    leftovers += compare(before["class"], class_state(args.class_dir), "class")

    keep = ancestors_and_self(out) if out else set()
    for folder, names in temp_names().items():
        for name in sorted(set(names) - set(before["temp"].get(folder, []))):
            path = os.path.join(folder, name)
            if path in GRADER_KEEPS or path in keep:
                continue
            if any(fnmatch.fnmatchcase(name, pattern) for pattern in args.ignore):
                continue
            try:
                owner = os.lstat(path).st_uid
            except OSError:
                continue  # gone meanwhile: not left
            leftovers.append(f"temporary: new {shown(path)} (uid {owner})")

    sandbox = sandbox_state(out)
    old = before.get("sandbox", {})
    for kind in ("processes", "sysv", "mqueue", "files"):
        there = set(old.get(kind, []))  # the same line: the same pid and command, object, file
        new = [line for line in sandbox[kind] if line not in there]
        kept = [line for line in sandbox[kind] if line in there]
        leftovers += [f"sandbox uid: {shown(line)}" for line in new]
        if kept:
            print(f"leftovers: note: {len(kept)} {kind} of the sandbox uids were there at the "
                  f"snapshot already (not counted): {shown(kept[0])}"
                  + (f" ... and {len(kept) - 1} more" if len(kept) > 1 else ""), file=sys.stderr)
    for note in sandbox["notes"]:
        print(f"leftovers: note: {note}", file=sys.stderr)

    for line in leftovers:
        print(line)
    if leftovers:
        print(f"leftovers: {len(leftovers)} things left behind", file=sys.stderr)
        return 1
    print("leftovers: none (kit and class unchanged, nothing of the sandbox uids, no new "
          "temporary files)")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("snapshot", "check"))
    parser.add_argument("file", type=Path, help="the snapshot (JSON), written or read")
    parser.add_argument("--kit", type=Path, default=Path(__file__).resolve().parents[2],
                        help="the kit's root (a git checkout; default: this one)")
    parser.add_argument("--class", dest="class_dir", type=Path, required=True,
                        help="the class folder graded (SUBMISSIONS)")
    parser.add_argument("--out", type=Path,
                        help="the grading's OUT (check: left out of the search)")
    parser.add_argument("--ignore", action="append", default=[], metavar="GLOB",
                        help="check: new names in /tmp etc. matching GLOB are not leftovers "
                             "(a busy machine's own temporary files; repeatable)")
    args = parser.parse_args(argv)
    args.kit = args.kit.resolve()
    args.class_dir = args.class_dir.resolve()
    return snapshot(args) if args.action == "snapshot" else check(args)


if __name__ == "__main__":
    sys.exit(main())
