"""The secret key of a hidden case set: made fresh for each set, kept in the set's folder
(SECRET_KEY, hex, mode 0600), and the only thing its drawn cases' seeds come from.

A seed taken from a case's name and a small number could be recomputed by a student who
guessed the number, and with it the hidden inputs and answers; an HMAC under a 256-bit random
key cannot. Standard library only."""

import hashlib
import hmac
import os
import secrets

KEY_FILE = "SECRET_KEY"
KEY_BYTES = 32


def new():
    """A fresh random key."""
    return secrets.token_bytes(KEY_BYTES)


def identifier(key):
    """12 hex digits that name the key in MANIFEST.json without revealing it (a hash with its
    own prefix, so it is no value the recorder uses for anything else)."""
    return hashlib.sha256(b"attn-kit key id" + key).hexdigest()[:12]


def case_seed(key, case):
    """The seed of a drawn case ("03_softmax/odd_shape") in the hidden set keyed by `key`:
    the first 4 bytes, big-endian, of HMAC-SHA256(key, case)."""
    return int.from_bytes(hmac.new(key, case.encode(), hashlib.sha256).digest()[:4], "big")


def write(folder, key):
    """Stores `key` in folder/SECRET_KEY (0600, replacing any old one in one step) and makes
    the folder 0700: the key and the answers it draws are the instructor's only."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    target = folder / KEY_FILE
    temporary = folder / f".{KEY_FILE}.new"
    temporary.unlink(missing_ok=True)
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        os.fchmod(file.fileno(), 0o600)  # whatever the umask
        file.write(key.hex() + "\n")
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, target)


def read(folder):
    """The key in folder/SECRET_KEY; ValueError saying why when there is none."""
    path = folder / KEY_FILE
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise ValueError(f"no {KEY_FILE} in {folder}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read {path}: {error}") from None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise ValueError(f"{path} is not a key: {KEY_BYTES * 2} hex digits expected")
    return key
