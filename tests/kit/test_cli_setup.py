"""tools/kit setup on the systems the kit is tested on, and on others: one clear line on a
system it does not know, never a stack trace, and no "everything is installed" where it could
not look (kitlib/packages.py)."""

import io
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path
from unittest import mock

import cli_testing  # noqa: F401  (puts tools/ on the path)
from kitlib import packages

PACKAGES = {"build": ["g++"], "recorder": [], "grader": []}


class PlatformTest(unittest.TestCase):
    def os_release(self, text: str) -> str:
        """An os-release file with this text, removed with the test."""
        folder = tempfile.TemporaryDirectory(prefix="attn-os-release.")
        self.addCleanup(folder.cleanup)
        path = Path(folder.name) / "os-release"
        path.write_text(text)
        return str(path)

    def test_tested_systems_need_no_note(self):
        for text in ('ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n',
                     'ID=debian\nVERSION_ID="13"\n', 'ID=ubuntu\nVERSION_ID="24.04"\n'):
            with self.subTest(text=text):
                platform = packages.this_platform(self.os_release(text))
                self.assertEqual(packages.platform_note(platform), "")

    def test_an_untested_debian_family_system_is_named(self):
        platform = packages.this_platform(self.os_release(
            'ID=ubuntu\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n'))
        with mock.patch.object(packages.shutil, "which", return_value="/usr/bin/dpkg-query"):
            note = packages.platform_note(platform)
        self.assertIn("Ubuntu 22.04.4 LTS is not one of the systems the kit is tested on", note)
        self.assertIn("Debian 12, Debian 13, Ubuntu 24.04", note)

    def test_no_os_release(self):
        self.assertEqual(packages.this_platform("/nonexistent/os-release"),
                         ("", "", "an unknown system"))

    def test_without_dpkg_setup_says_so_and_claims_nothing(self):
        platform = ("fedora", "40", "Fedora Linux 40")
        out = io.StringIO()
        with mock.patch.object(packages.shutil, "which", return_value=None), \
                mock.patch.object(packages, "this_platform", return_value=platform), \
                redirect_stdout(out):
            self.assertTrue(packages.install(PACKAGES, say_so=True))
        self.assertEqual(out.getvalue().count("\n"), 1, out.getvalue())
        self.assertIn("Fedora Linux 40 has no dpkg", out.getvalue())
        self.assertNotIn("everything is installed", out.getvalue())


class OptionalPackageTest(unittest.TestCase):
    """An optional package (lld) is installed where it can be, and never stops the kit: a
    student without root, or on a system without it, builds with GNU ld."""

    WITH_OPTIONAL = {"build": ["g++"], "recorder": [], "grader": [], "optional": ["lld"]}

    def install(self, missing: list, root: bool, apt_fails_on: str = "", say_so: bool = False):
        """(install's result, what it printed, the apt-get commands it ran)."""
        commands = []

        def apt(command, **_):
            commands.append(command)
            failed = apt_fails_on and apt_fails_on in command
            return mock.Mock(returncode=100 if failed else 0, stdout="E: no such package")

        out = io.StringIO()
        with mock.patch.object(packages.shutil, "which", return_value="/usr/bin/dpkg-query"), \
                mock.patch.object(packages, "this_platform", return_value=("debian", "12", "")), \
                mock.patch.object(packages, "missing_packages", return_value=missing), \
                mock.patch.object(packages.os, "geteuid", return_value=0 if root else 1000), \
                mock.patch.object(packages.subprocess, "run", side_effect=apt), \
                redirect_stdout(out):
            result = packages.install(self.WITH_OPTIONAL, say_so=say_so)
        return result, out.getvalue(), commands

    def test_without_root_a_missing_optional_package_stops_nothing(self):
        result, said, commands = self.install(["lld"], root=False)
        self.assertEqual((result, said, commands), (True, "", []))
        result, said, _ = self.install(["lld"], root=False, say_so=True)
        self.assertTrue(result)
        self.assertIn("optional, for faster builds: sudo apt-get install lld", said)

    def test_without_root_a_missing_required_package_stops_and_names_all(self):
        result, said, commands = self.install(["g++", "lld"], root=False)
        self.assertFalse(result)
        self.assertIn("these Debian packages are missing: g++\n", said)
        self.assertIn("sudo apt-get install g++ lld", said)
        self.assertEqual(commands, [])

    def test_as_root_both_are_installed_the_optional_apart(self):
        result, _, commands = self.install(["g++", "lld"], root=True)
        self.assertTrue(result)
        self.assertEqual([command[3:] for command in commands],
                         [["update", "-qq"],
                          ["install", "-y", "-qq", "--no-install-recommends", "g++"],
                          ["install", "-y", "-qq", "--no-install-recommends", "lld"]])

    def test_as_root_an_optional_package_that_fails_to_install_stops_nothing(self):
        result, said, _ = self.install(["lld"], root=True, apt_fails_on="lld")
        self.assertTrue(result)
        self.assertIn("the optional lld could not be installed", said)
        result, _, _ = self.install(["g++"], root=True, apt_fails_on="g++")
        self.assertFalse(result)


if __name__ == "__main__":
    unittest.main()
