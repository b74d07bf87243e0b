"""The PySolFC plugin file: written, inspected and removed safely, and failing gently."""

from __future__ import annotations

import itertools
import json
import os
import resource
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gapgrid import plugins
from gapgrid.api.cli import main
from gapgrid.api.pysolfc import install, rules_pages
from gapgrid.api.pysolfc.games import gapgrid_game_id
from gapgrid.core.catalogue import installed_plugin_names
from tests.distributions import GAPGRID


def test_install_status_uninstall_round_trip(tmp_path: Path) -> None:
    """install writes the file, status reports it up to date, uninstall removes it."""
    plugins_dir = tmp_path / "nested" / "plugins"
    path = install.install(plugins_dir)
    assert path == plugins_dir / install.PLUGIN_FILE_NAME
    text = path.read_text(encoding="utf-8")
    assert text.startswith(install.MARKER)
    assert f"GAPGRID_VERSION = {install.gapgrid_version()!r}" in text
    found = install.status(plugins_dir)
    assert found.installed and found.up_to_date
    pages = len(rules_pages.added_slugs(plugins.load_catalogue()))
    assert install.uninstall(plugins_dir) == install.Removed(path, pages)
    assert not path.exists()
    assert install.uninstall(plugins_dir) == install.Removed(None, 0)
    assert not install.status(plugins_dir).installed


def test_install_leaves_no_temporary_files(tmp_path: Path) -> None:
    """The file is written through a temporary file and renamed: nothing else is left."""
    install.install(tmp_path)
    install.install(tmp_path)  # reinstalling replaces it
    assert sorted(path.name for path in tmp_path.iterdir()) == [rules_pages.FOLDER,
                                                               install.PLUGIN_FILE_NAME]
    assert not list(tmp_path.glob("**/.gapgrid-*"))


def test_a_file_gapgrid_did_not_write_is_left_alone(tmp_path: Path) -> None:
    """A foreign file of the same name is neither replaced nor removed."""
    foreign = tmp_path / install.PLUGIN_FILE_NAME
    foreign.write_text("# somebody else's plugin\n")
    with pytest.raises(install.PluginFileError, match="not written by gapgrid"):
        install.install(tmp_path)
    with pytest.raises(install.PluginFileError, match="not written by gapgrid"):
        install.uninstall(tmp_path)
    assert foreign.read_text() == "# somebody else's plugin\n"
    for command in ("install", "uninstall"):  # the folder's state: exit 2, not 1 (refused move)
        result = CliRunner().invoke(main, ["pysolfc", command, "--plugins-dir", str(tmp_path)])
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("gapgrid: ") and "not written by gapgrid" in result.stderr
    assert foreign.read_text() == "# somebody else's plugin\n"


def test_status_says_a_file_gapgrid_did_not_write_is_in_the_way(tmp_path: Path) -> None:
    """Where a foreign file stands, status said "Not installed ... Run install", and install
    then refused: it now says the file is in the way, and to move it first."""
    foreign = tmp_path / install.PLUGIN_FILE_NAME
    foreign.write_text("print('mine')\n")
    result = CliRunner().invoke(main, ["pysolfc", "status", "--plugins-dir", str(tmp_path)])
    assert result.output.startswith(f"Not installed: {foreign} is a file gapgrid did not "
                                    f"write, which install will not replace. Move it away")
    as_json = CliRunner().invoke(main, ["pysolfc", "status", "--plugins-dir", str(tmp_path),
                                        "--json"])
    assert json.loads(as_json.output)["foreign_file"] is True
    assert not install.status(tmp_path / "elsewhere").foreign


def test_a_failed_install_leaves_no_temporary_file_and_names_the_file(tmp_path: Path) -> None:
    """A write the machine refuses (a full disk; here a file size limit, ``ulimit -f``) left
    its temporary file behind, one more each try, and was said as the plugin file's whatever
    file it was; uninstall then said "Nothing to remove" while it removed the pages
    written before the failure."""
    pages = rules_pages.rules_pages(plugins.load_catalogue(entry_points=False))
    sizes = [len(text.encode()) for text in pages.values()]
    # a limit (in bytes) that lets the first pages be written, then refuses one
    limit = next(size for size in sorted(set(sizes)) if sizes[0] <= size < max(sizes))
    written = list(itertools.takewhile(lambda size: size <= limit, sizes))
    failing = list(pages)[len(written)]

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    only_gapgrids = dict(os.environ, GAPGRID_DISABLE_PLUGINS=",".join(installed_plugin_names()))
    result = subprocess.run([str(GAPGRID), "pysolfc", "install", "--plugins-dir", str(tmp_path)],
                            capture_output=True, text=True, preexec_fn=limited, timeout=60,
                            env=only_gapgrids, check=False)
    folder = tmp_path / rules_pages.FOLDER
    assert result.returncode == 2
    assert result.stderr == f"gapgrid: cannot write {folder / failing}: File too large\n"
    assert not list(tmp_path.rglob(".gapgrid-*"))
    assert not (tmp_path / install.PLUGIN_FILE_NAME).exists()
    leftover = folder / ".gapgrid-cut-off.tmp"  # as a killed install left one, long ago
    leftover.write_text("")
    os.utime(leftover, (time.time() - 3600, time.time() - 3600))
    writing = tmp_path / ".gapgrid-writing-now.tmp"  # another install's, being written
    writing.write_text("")
    removed = CliRunner().invoke(main, ["pysolfc", "uninstall", "--plugins-dir", str(tmp_path)])
    pages_removed = "1 rules page" if len(written) == 1 else f"{len(written)} rules pages"
    assert removed.output == (f"No plugin file in {tmp_path}; removed {pages_removed} left "
                              f"from an install.\n")
    assert list(tmp_path.iterdir()) == [writing]


def _with_read_only(folder: Path, command: str, plugins_dir: Path
                    ) -> subprocess.CompletedProcess[str]:
    """Run ``gapgrid pysolfc COMMAND --plugins-dir PLUGINS_DIR`` with ``folder`` read-only: a
    read-only bind mount in a mount namespace of the command's own (root can write where
    file modes say no); skipped where no mount namespace can be made."""
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"no mount namespace here: {probe.stderr.decode().strip()}")
    script = (f'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && '
              f'exec "{GAPGRID}" pysolfc {command} --plugins-dir "$2"')
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", str(folder),
                           str(plugins_dir)], capture_output=True, text=True, timeout=60,
                          check=False)


def test_a_folder_that_refuses_a_new_file_is_named_with_the_file_meant(
        tmp_path: Path) -> None:
    """Where the temporary file cannot even be made (a read-only folder, here a read-only
    bind mount of the rules folder in a mount namespace of the command's own), the message
    named the random temporary file (".gapgrid-1myzcpr3.tmp"), not the page meant."""
    folder = tmp_path / rules_pages.FOLDER
    folder.mkdir()
    result = _with_read_only(folder, "install", tmp_path)
    assert result.returncode == 2, result.stderr
    first = next(iter(rules_pages.rules_pages(plugins.load_catalogue())))
    assert result.stderr == (f"gapgrid: cannot write {folder / first}: Read-only file "
                             f"system\n")


def test_installed_files_take_the_users_umask(tmp_path: Path) -> None:
    """They were always 0600 (a temporary file's mode), so another user's PySolFC reading the
    folder could not load the plugin."""
    previous = os.umask(0o022)
    try:
        install.install(tmp_path)
    finally:
        os.umask(previous)
    written = [tmp_path / install.PLUGIN_FILE_NAME,
               *(tmp_path / rules_pages.FOLDER).iterdir()]
    assert {path.stat().st_mode & 0o777 for path in written} == {0o644}


def test_uninstall_removes_the_plugin_file_before_its_pages(tmp_path: Path) -> None:
    """When the pages cannot be removed (their folder read-only, here by a read-only bind
    mount in a mount namespace of the command's own), the plugin file is gone already:
    PySolFC never runs a plugin whose pages were taken away (its rules buttons greyed out).
    It was the other way round."""
    install.install(tmp_path)
    folder = tmp_path / rules_pages.FOLDER
    result = _with_read_only(folder, "uninstall", tmp_path)
    assert result.returncode == 2, result.stderr
    assert "cannot remove" in result.stderr and "Read-only file system" in result.stderr
    assert not (tmp_path / install.PLUGIN_FILE_NAME).exists()
    assert len(list(folder.iterdir())) == len(rules_pages.added_slugs(plugins.load_catalogue()))


def test_an_empty_plugins_folder_name_is_refused(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """``--plugins-dir ""`` (an unset shell variable) installed into the current folder."""
    monkeypatch.chdir(tmp_path)
    for command in ("install", "uninstall", "status"):
        result = CliRunner().invoke(main, ["pysolfc", command, "--plugins-dir", ""])
        assert result.exit_code == 2 and "is empty" in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_rules_page_gapgrid_did_not_write_is_left_alone(tmp_path: Path) -> None:
    """A page in the rules folder without gapgrid's first line (a player's own notes under
    that name, or gapgrid's page edited) is not replaced: install refuses before writing
    anything, exit 2, naming it (it was overwritten); uninstall leaves it."""
    folder = tmp_path / rules_pages.FOLDER
    folder.mkdir()
    mine = folder / "gaps.html"
    mine.write_text("<p>my own notes on Gaps</p>\n")
    result = CliRunner().invoke(main, ["pysolfc", "install", "--plugins-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert f"{mine} exists and was not written by gapgrid; not replacing it" in result.stderr
    assert sorted(path.name for path in tmp_path.rglob("*")) == [rules_pages.FOLDER,
                                                                "gaps.html"]
    mine.unlink()
    install.install(tmp_path)
    mine.write_text("<p>my own notes on Gaps</p>\n")
    install.uninstall(tmp_path)
    assert [path.name for path in folder.iterdir()] == ["gaps.html"]
    assert mine.read_text() == "<p>my own notes on Gaps</p>\n"


def test_an_old_plugin_file_is_reported_as_out_of_date(tmp_path: Path) -> None:
    """status says when the file was written by another gapgrid version."""
    (tmp_path / install.PLUGIN_FILE_NAME).write_text(
        install.plugin_source(version="0.0.1", directories=[]))
    found = install.status(tmp_path)
    assert found.installed and not found.up_to_date and found.written_by == "0.0.1"
    result = CliRunner().invoke(main, ["pysolfc", "status", "--plugins-dir", str(tmp_path)])
    assert "written by gapgrid 0.0.1" in result.output and "pysolfc install" in result.output


def test_a_plugin_file_of_the_same_version_but_other_text_is_out_of_date(
        tmp_path: Path) -> None:
    """The version number alone does not make a file current: one written for another
    installation (or by a gapgrid changed since, under the same number) is reported, with
    the command that writes it anew; that command makes it current."""
    (tmp_path / install.PLUGIN_FILE_NAME).write_text(
        install.plugin_source(directories=["/elsewhere/site-packages"]))
    found = install.status(tmp_path)
    assert found.installed and found.written_by == found.current
    assert not found.as_written_now and not found.up_to_date
    result = CliRunner().invoke(main, ["pysolfc", "status", "--plugins-dir", str(tmp_path)])
    assert "but not as this gapgrid writes it" in result.output
    assert "pysolfc install" in result.output
    install.install(tmp_path)
    assert install.status(tmp_path).up_to_date


def test_default_plugins_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """~/.PySolFC/plugins, or %APPDATA%\\PySolFC\\plugins on Windows."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(sys, "platform", "linux")
    assert install.default_plugins_dir() == tmp_path / ".PySolFC" / "plugins"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("APPDATA", str(tmp_path / "Roaming"))
    assert install.default_plugins_dir() == tmp_path / "Roaming" / "PySolFC" / "plugins"


def test_command_line_install_and_uninstall(tmp_path: Path) -> None:
    """The commands report where the file went."""
    runner = CliRunner()
    installed = runner.invoke(main, ["pysolfc", "install", "--plugins-dir", str(tmp_path)])
    assert installed.exit_code == 0 and "Installed" in installed.output
    assert "rules pages beside it" in installed.output
    removed = runner.invoke(main, ["pysolfc", "uninstall", "--plugins-dir", str(tmp_path)])
    assert removed.exit_code == 0 and "Removed" in removed.output


def _run_plugin_file(path: Path, *, isolated: bool, pythonpath: Path | None = None
                     ) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    command = [sys.executable, *(["-I", "-S"] if isolated else []), str(path)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=60,
                          check=False)


def test_plugin_file_without_gapgrid_lets_pysolfc_start(tmp_path: Path) -> None:
    """Where gapgrid cannot be imported the file prints how to fix it and returns normally."""
    plugin = tmp_path / install.PLUGIN_FILE_NAME
    plugin.write_text(install.plugin_source(directories=[str(tmp_path / "nowhere")]))
    result = _run_plugin_file(plugin, isolated=True)
    assert result.returncode == 0
    assert "gapgrid cannot be imported" in result.stderr
    assert "gapgrid pysolfc install" in result.stderr


# A stand-in for PySolFC's modules, just enough for the bridge to import and register.
FAKE_PYSOLLIB = {
    "pysollib/__init__.py": "",
    "pysollib/games/__init__.py": "",
    "pysollib/games/montana.py": """
        class Montana: pass
        class Montana_Hint: pass
        class Montana_RowStack: pass
        class Montana_Talon: pass
        """,
    "pysollib/hint.py": """
        HINT_LEVEL_PLAYER, HINT_LEVEL_DEBUG, HINT_LEVEL_DEMO = 0, 1, 2
        """,
    "pysollib/stack.py": """
        class BasicRowStack: pass
        def StackWrapper(cls, **kwargs): return (cls, kwargs)
        """,
    "pysollib/gamedb.py": """
        class GI:
            GT_MONTANA, GT_OPEN, SL_MOSTLY_SKILL = 1, 2, 3
        class _DB:
            def get(self, key): return "taken" if key == 982017 else None
            def getGameByName(self, name): return 53 if name == "Gaps" else None
        GAME_DB = _DB()
        class GameInfo:
            def __init__(self, id, gameclass, name, game_type, decks, redeals, skill, ranks,
                         rules_filename=None):
                self.line = f"{id} {name!r} decks={decks} redeals={redeals} rlen={gameclass.RLEN}"
                self.line += f" rules={rules_filename}"
        def registerGame(info):
            print("registered", info.line)
        """,
}


def _fake_pysollib(root: Path) -> Path:
    for name, source in FAKE_PYSOLLIB.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(source))
    return root


def test_plugin_file_registers_the_games_pysolfc_lacks(tmp_path: Path) -> None:
    """With gapgrid importable, every preset and third-party variant is registered once."""
    plugin = tmp_path / install.PLUGIN_FILE_NAME
    plugin.write_text(install.plugin_source())  # the file alone: no rules pages beside it
    result = _run_plugin_file(plugin, isolated=False, pythonpath=_fake_pysollib(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "no rules page" in result.stderr and "gapgrid pysolfc install" in result.stderr
    lines = result.stdout.splitlines()
    assert (f"registered {gapgrid_game_id('montana-relax')} 'Montana Relax (gapgrid)' "
            f"decks=1 redeals=3 rlen=52 rules=None") in lines
    assert (f"registered {gapgrid_game_id('gaps-unlimited')} 'Gaps, unlimited redeals "
            f"(gapgrid)' decks=1 redeals=-1 rlen=52 rules=None") in lines
    assert not any(" 53 " in line or "'Montana'" in line for line in lines)
    # The fake PySolFC says id 982017 (gaps) is taken: reported, not replaced.
    assert "gaps not added: PySolFC game id 982017 is taken" in result.stderr


def test_plugin_file_of_another_version_does_nothing(tmp_path: Path) -> None:
    """A file written by another gapgrid registers nothing and says how to update it."""
    plugin = tmp_path / install.PLUGIN_FILE_NAME
    plugin.write_text(install.plugin_source(version="0.0.1"))
    result = _run_plugin_file(plugin, isolated=False, pythonpath=_fake_pysollib(tmp_path))
    assert result.returncode == 0
    assert "registered" not in result.stdout
    assert "written by gapgrid 0.0.1" in result.stderr and "pysolfc install" in result.stderr


def test_install_writes_a_rules_page_for_every_added_game(tmp_path: Path) -> None:
    """install writes one page per game the plugin adds, with its rules; uninstall removes them
    and leaves other files alone."""
    install.install(tmp_path)
    folder = tmp_path / rules_pages.FOLDER
    catalogue = plugins.load_catalogue()
    added = rules_pages.added_slugs(catalogue)
    assert {"gaps", "montana-relax", "blue-moon-classic"} <= set(added)
    assert "montana" not in added  # PySolFC has its own page for its own games
    assert sorted(path.name for path in folder.iterdir()) == sorted(
        rules_pages.page_name(slug) for slug in added)
    page = (folder / "gaps.html").read_text(encoding="utf-8")
    assert page.startswith(rules_pages.MARKER)
    assert "<h1>Gaps (gapgrid)</h1>" in page
    assert catalogue.lookup("montana").summary.split(".")[0] in page  # the variant's rules
    (folder / "notes.txt").write_text("mine\n")
    install.uninstall(tmp_path)
    assert [path.name for path in folder.iterdir()] == ["notes.txt"]
    assert not (tmp_path / install.PLUGIN_FILE_NAME).exists()


def test_plugin_file_gives_each_game_its_rules_page(tmp_path: Path) -> None:
    """Loaded from where install put it, the plugin file hands PySolFC each page's path."""
    plugins_dir = tmp_path / "plugins"
    plugin = install.install(plugins_dir)
    result = _run_plugin_file(plugin, isolated=False, pythonpath=_fake_pysollib(tmp_path))
    assert result.returncode == 0, result.stderr
    page = (plugins_dir / rules_pages.FOLDER / "montana-relax.html").resolve()
    assert f"rules={page}" in result.stdout
    assert "no rules page" not in result.stderr


@pytest.mark.parametrize("state", ["missing", "old", "no-pages"])
def test_status_suggests_the_install_command_for_the_folder_named(tmp_path: Path,
                                                                  state: str) -> None:
    """`status --plugins-dir X` suggests `gapgrid pysolfc install --plugins-dir X`, whatever
    is wrong (issue 15: it suggested a command without the folder)."""
    folder = tmp_path / "my plugins"
    if state == "old":
        folder.mkdir()
        (folder / install.PLUGIN_FILE_NAME).write_text(
            install.plugin_source(version="0.0.1", directories=[]))
    elif state == "no-pages":
        install.install(folder)
        (folder / rules_pages.FOLDER / "gaps.html").unlink()
    result = CliRunner().invoke(main, ["pysolfc", "status", "--plugins-dir", str(folder)])
    assert result.exit_code == 0, result.output
    assert f"gapgrid pysolfc install --plugins-dir '{folder}'" in result.output
    if state == "no-pages":
        assert "1 game has no rules page (gaps)" in result.output
    as_json = CliRunner().invoke(main, ["pysolfc", "status", "--plugins-dir", str(folder),
                                       "--json"])
    assert json.loads(as_json.output)["install_command"] == (
        f"gapgrid pysolfc install --plugins-dir '{folder}'")


def test_status_without_a_folder_suggests_the_plain_command(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """Without --plugins-dir the suggestion is the plain command, for the default folder."""
    monkeypatch.setattr(install, "default_plugins_dir", lambda: tmp_path / "default")
    result = CliRunner().invoke(main, ["pysolfc", "status"])
    assert "Run `gapgrid pysolfc install`." in result.output
