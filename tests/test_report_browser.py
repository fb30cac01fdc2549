"""The reproduction report in a real browser: Debian's headless Chromium, driven by selenium
through Debian's chromedriver (the same source package as the browser, so their versions always
match; selenium is a small pure-Python client, and nothing is downloaded at run time).

The test opens report.html from a real run, and finds every figure rendered (loaded, with a
non-zero size on the page), the claims table present with a row per claim, and no console error.
It fails, never skips, when the browser is missing: the install command is in the message (and
`make install-test` runs it as root). ``MCASTLAB_SCREENSHOT=path.png`` keeps a screenshot of the
page, to look at it as a person does.
"""

import os
import shutil
import tempfile

import pytest

from mcastlab.reproduce.api import reproduce

INSTALL = "apt-get install -y chromium chromium-driver && pip install selenium  (or: make install-test, as root)"
# Flags for a headless browser as root on a machine without network: no sandbox (root), no GPU,
# and none of the background connections Chromium makes at start (refused here, logged as errors).
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--window-size=1280,2000")


def _browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail(f"selenium is not installed: {INSTALL}")
    binary = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    driver = shutil.which("chromedriver")
    if binary is None or driver is None:
        pytest.fail(f"no headless browser found (chromium: {binary}, chromedriver: {driver}): {INSTALL}")
    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for f in FLAGS:
        opts.add_argument(f)
    profile = tempfile.mkdtemp(prefix="mcastlab-chromium-")
    opts.add_argument(f"--user-data-dir={profile}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=driver), options=opts), profile


def test_report_renders_in_headless_chromium(tmp_path):
    rep = reproduce("coll03", scale="tiny", out=tmp_path, serial=True, store=False)
    n_claims = len(rep.verdicts)
    n_figures = len(rep.experiments)
    browser, profile = _browser()
    try:
        browser.get((tmp_path / "report.html").as_uri())
        figures = browser.execute_script(
            "return Array.from(document.querySelectorAll('img.figure')).map(i => "
            "({ok: i.complete, w: i.naturalWidth, h: i.naturalHeight, rw: i.getBoundingClientRect().width, "
            "rh: i.getBoundingClientRect().height}))")
        assert len(figures) == n_figures
        for f in figures:
            assert f["ok"] and f["w"] > 0 and f["h"] > 0 and f["rw"] > 0 and f["rh"] > 0, f
        rows = browser.execute_script("return document.querySelectorAll('#claims tr').length")
        assert rows == n_claims + 1  # the header and a row per claim
        verdicts = browser.execute_script(
            "return Array.from(document.querySelectorAll('#claims .v')).map(e => e.textContent)")
        assert len(verdicts) == n_claims and set(verdicts) <= {"holds", "differs", "not applicable", "pending"}
        errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        assert errors == [], errors
        shot = os.environ.get("MCASTLAB_SCREENSHOT")
        if shot:
            height = browser.execute_script("return document.body.scrollHeight")
            browser.set_window_size(1280, min(height + 100, 16000))
            browser.save_screenshot(shot)
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)
