"""The page in a real browser: Debian's chromium driven by Selenium through
chromium-driver (no browser download). Skipped cleanly when either is
missing (``pip install -e '.[test-serve]'``; ``.ci/run`` installs chromium).
Screenshots go to the test's temporary folder, or to REGRAG_SCREENSHOTS."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the test-serve extra)")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason="chromium and chromium-driver are not installed"),
]

from tests.serve.support import TOKENS  # noqa: E402


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1200,1600", "--lang=en-US"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def shots(tmp_path) -> Path:
    folder = Path(os.environ.get("REGRAG_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def click_and_wait(driver, element) -> None:
    """Click ``element`` and wait until the next page replaced this one and
    finished loading: a click does not wait for the load, and an element
    found while the new page was still being committed could be reported as
    "does not belong to the document" when read (seen once in CI)."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    wait = WebDriverWait(driver, 60)
    wait.until(expected_conditions.staleness_of(page))
    wait.until(lambda d: d.execute_script("return document.readyState") == "complete")


def hit_documents(driver) -> list[str]:
    """The ``data-document`` of every hit on the page, read in one script
    call, so no element reference can go stale between finding and reading."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('.hit'), e => e.getAttribute('data-document'))")


def log_in(driver, server, name: str) -> None:
    driver.get(server.base + "/login")
    driver.delete_all_cookies()  # cookies ignore ports: another test's server set some on 127.0.0.1
    driver.get(server.base + "/login")
    driver.find_element(By.ID, "token").send_keys(TOKENS[name][0])
    click_and_wait(driver, driver.find_element(By.ID, "login"))
    assert driver.find_element(By.ID, "principal").text == name


def submit(driver, text: str, mode: str = "ask") -> None:
    box = driver.find_element(By.ID, "q")
    box.clear()
    box.send_keys(text)
    driver.find_element(By.CSS_SELECTOR, f'input[name="mode"][value="{mode}"]').click()
    click_and_wait(driver, driver.find_element(By.ID, "submit"))


def test_ask_cite_highlight_and_explain_in_a_browser(browser, server, shots):
    log_in(browser, server, "carol")
    submit(browser, "What is the annual fee of the standard account?")
    citations = browser.find_elements(By.CSS_SELECTOR, "#answer .citation")
    assert citations and "public-rates.md" in citations[0].text
    assert "Confidence" in browser.find_element(By.ID, "confidence").text
    marks = browser.find_elements(By.CSS_SELECTOR, ".hit .passage mark")
    assert marks and {m.text.lower() for m in marks} & {"annual", "fee"}
    assert browser.find_elements(By.CSS_SELECTOR, ".hit .section-title mark")  # matched in the section title too
    explain = browser.find_element(By.CSS_SELECTOR, "#hit-1 details.explain")
    table = explain.find_element(By.CSS_SELECTOR, "table.bm25")
    assert not table.is_displayed()
    explain.find_element(By.TAG_NAME, "summary").click()
    assert table.is_displayed() and "contribution" in table.text
    browser.save_screenshot(str(shots / "answer-explain.png"))
    # a citation links to the hit it cites
    citations = browser.find_elements(By.CSS_SELECTOR, "#answer .citation")
    target = citations[0].get_attribute("href").rsplit("#", 1)[1]
    assert browser.find_element(By.ID, target).get_attribute("data-document") == "public-rates.md"
    # no console errors: the CSP blocked nothing the page needs
    logs = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert logs == [], logs


def test_a_principal_without_the_group_never_sees_its_documents(browser, server, shots):
    log_in(browser, server, "dave")
    for mode in ("search", "ask"):
        submit(browser, "Zephyrion Holdings acquisition valuation fee", mode)
        page = browser.page_source
        for hidden in ("research-zephyrion.md", "advisory-client.md", "shared-policy.md", "4.2 billion"):
            assert hidden not in page
        assert set(hit_documents(browser)) <= {"public-rates.md"}
        browser.save_screenshot(str(shots / f"dave-{mode}.png"))
    log_in(browser, server, "alice")
    submit(browser, "Zephyrion Holdings acquisition valuation", "search")
    assert "research-zephyrion.md" in hit_documents(browser)


def test_chinese_and_vietnamese_pages_and_refusal(browser, server, shots):
    log_in(browser, server, "carol")
    browser.get(server.base + "/?lang=zh")
    submit(browser, "顾问账户的年费是多少？")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh"
    assert browser.find_elements(By.CSS_SELECTOR, "#answer .citation, #refusal")
    assert browser.find_elements(By.CSS_SELECTOR, ".hit mark")
    browser.save_screenshot(str(shots / "zh.png"))
    browser.get(server.base + "/?lang=vi")
    submit(browser, "Phí thường niên của tài khoản nghiên cứu là bao nhiêu?")
    assert "Gửi" in browser.find_element(By.ID, "submit").text
    assert "vn-thong-bao.md" in hit_documents(browser)
    browser.save_screenshot(str(shots / "vi.png"))
    browser.get(server.base + "/?lang=en")
    submit(browser, "Who won the football match yesterday?")
    assert browser.find_element(By.ID, "refusal").text == "Not found in the corpus"
    browser.save_screenshot(str(shots / "refusal.png"))


def test_the_ledger_browser_verifies_and_replays(browser, server, shots):
    log_in(browser, server, "carol")
    submit(browser, "annual fee", "search")
    browser.get(server.base + "/ledger")
    assert browser.find_element(By.ID, "verify-status").get_attribute("data-ok") == "true"
    click_and_wait(browser, browser.find_element(By.ID, "replay-button"))
    assert browser.find_elements(By.ID, "replay"), browser.page_source[:2000]
    text = browser.find_element(By.ID, "replay").text
    assert "identical" in text and "DIFFERENT" not in text
    browser.save_screenshot(str(shots / "ledger.png"))
