#!/usr/bin/env python3
"""Browser test of the web door: the chat widget and the agents' console, in headless Chromium
(Selenium, chromedriver), against a real `parley run` (scripts/browser-test starts it).

    browser_test.py --base http://127.0.0.1:PORT --screenshots DIR [--docs-images DIR]

The agents' tokens come from NINA_TOKEN and OMAR_TOKEN (nina works queue `agents`, omar only
`phone`), the admin API's from PARLEY_ADMIN_TOKEN. Checks, in order, one line each:
  1. the pages and their Content-Security-Policy; nina signs in to the console;
  2. a customer named `Eve <script>…` opens the widget by keyboard: the greeting card, /card bob
     (a contact card with tel: and mailto: links; a 👍 on it thanked), /docs (a link card, opened
     safely); a reload resumes the conversation; a message delivered twice is shown once; a send
     refused with 429 ("Slow down", again after Retry-After) or 401 (the session opened again)
     goes through (both refusals made in the page by a test hook);
  3. the refund flow (/refund: a quoted answer, a 👀 shown live; the order number) opens a
     ticket that appears in nina's console without a reload, the customer's name there as text;
     a broadcast started through the admin API shows in the console with a progress bar;
  4. the customer writes `<img src=x onerror=alert(1)>`: literal text in the widget and in the
     console's conversation, no img element, no alert;
  5. nina takes the ticket and replies, the customer sees the reply; omar gets 403 for it;
  6. nina resolves it, the bot talks to the customer again (the survey, then a command);
  7. a write from another origin is refused (403); a second visitor's stream holds none of the
     first visitor's messages; the cards of the test's bot `hostile` (javascript: and data: URLs,
     markup in names and texts, the bot's name itself) render inert; embed.js opens the widget
     in an iframe; both pages have a landmark, a live log and every control named; no
     Content-Security-Policy violation or script error in either browser.
Every wait is a WebDriverWait (or a socket read) with a timeout. Exit 0: all passed; 1: a check
failed (with the browser's console log and a screenshot); 2: setup failed.
"""
import argparse
import json
import os
import shutil
import socket
import sys
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 20           # seconds any one thing may take to show
XSS = "<img src=x onerror=alert(1)>"
NAME = "Eve <script>window.__parleyPwned=1</script>"
ORDER = "123456"
REPLY = "Hello from Nina: your refund is on its way."
# Test hooks in the widget's page, before its scripts run: its EventSource objects kept in
# window.__parleySources, and refusals of message POSTs on demand (window.__parleyRefuse).
TEST_HOOKS = """
(function () {
  var Original = window.EventSource;
  window.__parleySources = [];
  function Kept(url, init) { var source = new Original(url, init); window.__parleySources.push(source); return source; }
  Kept.prototype = Original.prototype;
  Kept.CONNECTING = 0; Kept.OPEN = 1; Kept.CLOSED = 2;
  window.EventSource = Kept;
  // window.__parleyRefuse = [429, 401]: the next POSTs to …/messages are answered with these
  // statuses (429 with Retry-After: 1) without reaching the server, once each.
  // window.__parleyCut = N: the next N POSTs to …/messages reach the server, but their answer
  // is thrown away and the page sees a network error (a connection cut after the request).
  // window.__parleyBodies: the bodies of the POSTs to …/messages.
  var originalFetch = window.fetch;
  window.__parleyRefuse = [];
  window.__parleyRequests = [];
  window.__parleyCut = 0;
  window.__parleyBodies = [];
  window.fetch = function (url, init) {
    window.__parleyRequests.push(((init && init.method) || "GET") + " " + String(url));
    var toMessages = /\/messages$/.test(String(url)) && init && init.method === "POST";
    if (toMessages) window.__parleyBodies.push(String(init.body));
    if (toMessages && window.__parleyRefuse.length) {
      var status = window.__parleyRefuse.shift();
      return Promise.resolve(new Response(JSON.stringify({error: "refused by the test"}),
        {status: status, headers: status === 429 ? {"Retry-After": "1", "Content-Type": "application/json"} : {"Content-Type": "application/json"}}));
    }
    if (toMessages && window.__parleyCut > 0) {
      window.__parleyCut -= 1;
      return originalFetch.apply(this, arguments).then(function () { throw new TypeError("Failed to fetch (cut by the test)"); });
    }
    return originalFetch.apply(this, arguments);
  };
})();
"""
BROADCAST = "browser-test"
BROADCAST_SIZE = 30


class CheckFailed(Exception):
    pass


class Browser:
    """One headless Chromium with its own profile (so its own cookies), logging its console."""

    def __init__(self, name, chromium, chromedriver, size):
        self.name = name
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--no-first-run", "--disable-extensions", "--lang=en-US", f"--window-size={size}"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(executable_path=chromedriver)
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(WAIT)
        self.driver.set_script_timeout(WAIT)
        self.log = []

    def wait(self, what, condition, timeout=WAIT):
        """Waits until `condition(driver)` is truthy and returns it; CheckFailed naming `what`."""
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1,
                                 ignored_exceptions=[WebDriverException]).until(condition)
        except TimeoutException:
            raise CheckFailed(f"{self.name}: timed out after {timeout} s waiting for {what}") from None

    def console_log(self):
        try:
            self.log.extend(self.driver.get_log("browser"))
        except WebDriverException:
            pass
        return self.log

    def quit(self):
        try:
            self.driver.quit()
        except WebDriverException:
            pass


CHECKS = []


def check(line):
    CHECKS.append(line)
    print(f"browser-test: ok: {line}", flush=True)


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


# ---- Plain HTTP (urllib, every request with a timeout)

def call(method, url, body=None, headers=None, timeout=10):
    """(status, headers, body bytes) of one request; HTTP errors are answers too."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def read_stream_until(url, headers, stop, timeout):
    """Reads a text/event-stream until `stop(text so far)` is true, the stream ends or `timeout`
    seconds pass (the socket's timeout bounds each read); returns the text read."""
    request = urllib.request.Request(url, headers=dict(headers, Accept="text/event-stream"))
    text = ""
    deadline = time.monotonic() + timeout
    with urllib.request.urlopen(request, timeout=timeout) as response:
        expect(response.status == 200, f"{url} answered {response.status}")
        while not stop(text):
            try:
                chunk = response.read1(65536)   # one chunk of the chunked body, decoded
            except (socket.timeout, TimeoutError):
                break
            if not chunk or time.monotonic() > deadline:
                break
            text += chunk.decode("utf-8", "replace")
    return text


# ---- The widget

def widget_messages(browser):
    return browser.driver.find_elements(By.CSS_SELECTOR, "#messages li.msg")


def find_message(browser, what, predicate, timeout=WAIT):
    """Waits for a message element (li.msg) satisfying `predicate(element)`."""
    def found(driver):
        for element in widget_messages(browser):
            try:
                if predicate(element):
                    return element
            except WebDriverException:
                continue
        return None
    return browser.wait(what, found, timeout)


def bot_text(text):
    return lambda element: "from-bot" in element.get_attribute("class") and text in element.text


def send(browser, text):
    box = browser.driver.find_element(By.ID, "text")
    box.send_keys(text)
    box.send_keys(Keys.ENTER)
    browser.wait(f"the message box to empty after sending {text!r}",
                 lambda driver: driver.find_element(By.ID, "text").get_attribute("value") == "")


def no_alert(browser):
    try:
        alert = browser.driver.switch_to.alert
        text = alert.text
        alert.dismiss()
        raise CheckFailed(f"{browser.name}: an alert opened: {text!r}")
    except NoAlertPresentException:
        pass


def not_pwned(browser):
    # dom.js and the page's own script, and nothing else.
    pwned = browser.driver.execute_script("return window.__parleyPwned === undefined && document.scripts.length;")
    expect(pwned == 2, f"{browser.name}: a script ran or was added (document.scripts: {pwned})")


# ---- The console

def ticket_item(agent, note_text):
    """The console's list item whose note contains `note_text`, or None."""
    for item in agent.driver.find_elements(By.CSS_SELECTOR, "#tickets li[data-ticket]"):
        if note_text in item.text:
            return item
    return None


def detail(agent, label):
    """The value of the open ticket's detail `label` (Status, Holder, …)."""
    terms = agent.driver.find_elements(By.CSS_SELECTOR, "#ticket-details dt")
    for term in terms:
        if term.text.strip() == label:
            return term.find_element(By.XPATH, "following-sibling::dd[1]").text
    return None


def run(args, customer, agent):
    base = args.base
    nina, omar = os.environ["NINA_TOKEN"], os.environ["OMAR_TOKEN"]

    # 1. The pages, with their policy; nina signs in.
    status, headers, body = call("GET", f"{base}/chat/support")
    expect(status == 200 and "text/html" in headers.get("Content-Type", ""), f"GET /chat/support: {status}")
    policy = headers.get("Content-Security-Policy", "")
    expect("script-src 'self'" in policy and "frame-ancestors" in policy, f"the widget's CSP: {policy!r}")
    expect(b"/chat/assets/widget.js" in body, "the widget page does not load widget.js")
    status, headers, _ = call("GET", f"{base}/console")
    expect(status == 200 and "script-src 'self'" in headers.get("Content-Security-Policy", ""),
           f"GET /console: {status}, CSP {headers.get('Content-Security-Policy')!r}")
    for path, kind in [("/chat/assets/widget.js", "javascript"), ("/chat/assets/widget.css", "css"),
                       ("/chat/embed.js", "javascript"), ("/console/assets/console.js", "javascript"),
                       ("/console/assets/console.css", "css")]:
        status, headers, _ = call("GET", base + path)
        expect(status == 200 and kind in headers.get("Content-Type", ""),
               f"GET {path}: {status} {headers.get('Content-Type')}")
    check("the widget, the console and their assets are served, the pages with a Content-Security-Policy")

    agent.driver.get(f"{base}/console")
    agent.wait("the sign-in form", lambda d: d.find_element(By.ID, "token").is_displayed())
    agent.driver.find_element(By.ID, "token").send_keys("wrong-token-wrong-token")
    agent.driver.find_element(By.ID, "signin-button").click()
    agent.wait("'Wrong token.'", lambda d: d.find_element(By.ID, "signin-error").text == "Wrong token.")
    agent.driver.find_element(By.ID, "token").clear()
    agent.driver.find_element(By.ID, "token").send_keys(nina + Keys.ENTER)
    agent.wait("the workspace after signing in", lambda d: d.find_element(By.ID, "workspace").is_displayed())
    agent.wait("'Signed in as nina'", lambda d: "Signed in as nina" in d.find_element(By.ID, "who").text)
    agent.driver.execute_script("window.__parleyNoReload = true;")
    check("nina signs in to the console (a wrong token is refused)")


    # 2. The customer: greeting, contact card, link card. The page's EventSource objects are
    # kept where the test can reach them (injected by the DevTools protocol, before any script),
    # to replay an event as a reconnect may.
    customer.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TEST_HOOKS})
    customer.driver.get(f"{base}/chat/support")
    customer.wait("the name field", lambda d: d.find_element(By.ID, "name").is_displayed())
    # By keyboard: Tab reaches the name field first, Enter starts, the message box takes the focus.
    ActionChains(customer.driver).send_keys(Keys.TAB).perform()
    focused = customer.driver.switch_to.active_element.get_attribute("id")
    expect(focused == "name", f"the first Tab in the widget focuses #{focused}, not the name field")
    ActionChains(customer.driver).send_keys(NAME + Keys.ENTER).perform()
    customer.wait("the message box, focused", lambda d: d.find_element(By.ID, "text").is_displayed() and
                  d.switch_to.active_element.get_attribute("id") == "text")
    send(customer, "/card bob")
    greeting = find_message(customer, "the greeting card",
                            lambda e: e.find_elements(By.CSS_SELECTOR, ".card.greeting"))
    expect("I'm Support" in greeting.text, f"greeting card text: {greeting.text!r}")
    expect(NAME in greeting.text, f"the greeting does not show the name as text: {greeting.text!r}")
    not_pwned(customer)
    check("the greeting card appears (the visitor's name <script>… in it as text); the widget started by keyboard")

    vcard = find_message(customer, "the contact card of /card bob",
                         lambda e: e.find_elements(By.CSS_SELECTOR, ".card.vcard") and "Bob Stone" in e.text)
    expect("Support engineer" in vcard.text, f"contact card: {vcard.text!r}")
    tel = vcard.find_element(By.CSS_SELECTOR, "a[href^='tel:']")
    expect(tel.get_attribute("href") == "tel:+49301234567" and tel.text == "+49 30 1234567",
           f"phone link: {tel.get_attribute('href')} {tel.text!r}")
    mail = vcard.find_element(By.CSS_SELECTOR, "a[href^='mailto:']")
    expect(mail.get_attribute("href") == "mailto:bob@example.com", f"email link: {mail.get_attribute('href')}")
    check("/card bob shows a contact card (name, title, tel: and mailto: links)")

    offer = vcard.find_element(By.CSS_SELECTOR, "button.chip[aria-label='React \U0001F44D']")
    offer.click()
    find_message(customer, "the bot's thanks for the 👍", bot_text("Thanks for the feedback!"))
    customer.wait("the 👍 chip pressed with a count",
                  lambda d: vcard.find_element(By.CSS_SELECTOR, "button.chip[aria-pressed='true']").text.endswith(" 1"))
    check("a 👍 on the contact card reaches the bot (it thanks), the chip shows it")

    send(customer, "/docs")
    link = find_message(customer, "the link card of /docs",
                        lambda e: e.find_elements(By.CSS_SELECTOR, ".card.link a"))
    anchor = link.find_element(By.CSS_SELECTOR, ".card.link a")
    expect(anchor.get_attribute("href") == "https://example.com/docs" and anchor.text == "Parley docs",
           f"link: {anchor.get_attribute('href')} {anchor.text!r}")
    expect(anchor.get_attribute("rel") == "noopener noreferrer" and anchor.get_attribute("target") == "_blank",
           f"link rel/target: {anchor.get_attribute('rel')} {anchor.get_attribute('target')}")
    expect("Everything about Parley" in link.text, f"link card: {link.text!r}")
    check("/docs shows a link card (https, rel=noopener noreferrer, target=_blank, description)")
    os.makedirs(args.screenshots, exist_ok=True)
    customer.driver.execute_script("document.activeElement.blur();")
    customer.driver.save_screenshot(os.path.join(args.screenshots, "widget.png"))
    customer.driver.find_element(By.ID, "text").click()

    # A reload resumes the session (the cookie): the conversation comes back, each message once.
    before = [e.get_attribute("data-id") for e in widget_messages(customer)]
    customer.driver.refresh()
    customer.wait("the conversation back after a reload",
                  lambda d: [e.get_attribute("data-id") for e in widget_messages(customer)] == before)
    expect(customer.driver.find_element(By.ID, "composer").is_displayed(), "the reloaded widget asks to start again")
    check(f"a reload resumes the conversation: its {len(before)} messages back, once each")

    # A message the stream delivers again (as after a reconnect) is shown once; a new one is shown.
    last = widget_messages(customer)[-1].get_attribute("data-id")
    count = len(widget_messages(customer))
    customer.driver.execute_script("""
        var source = window.__parleySources[window.__parleySources.length - 1];
        function deliver(id, text) {
            source.dispatchEvent(new MessageEvent("message", {data: JSON.stringify(
                {id: id, from: "bot", type: "text", text: text, fields: {text: text}, sender: {id: "support", name: "Support"}})}));
        }
        deliver(arguments[0], "a replayed copy");
        deliver("replay-check-" + arguments[0], "a new message");""", last)
    find_message(customer, "the new synthetic message", bot_text("a new message"))
    expect(len(widget_messages(customer)) == count + 1 and "a replayed copy" not in customer.driver.find_element(By.ID, "messages").text,
           "a message delivered twice is shown twice")
    check("a message the stream delivers again (as after a reconnect) is shown once")

    # Refused sends: 429 shows "Slow down" and sends again after Retry-After; 401 opens the
    # session again and sends again.
    customer.driver.execute_script("window.__parleyRefuse = [429];")
    box = customer.driver.find_element(By.ID, "text")
    box.send_keys("opening hours?" + Keys.ENTER)
    customer.wait("'Slow down' after a 429", lambda d: d.find_element(By.ID, "status").text == "Slow down")
    find_message(customer, "the message sent again after Retry-After", bot_text("We are open 9–18"))
    customer.driver.execute_script("window.__parleyRefuse = [401]; window.__parleyRequests = [];")
    send(customer, "what are your opening hours")
    customer.wait("the second answer after a 401",
                  lambda d: len([e for e in widget_messages(customer) if "We are open 9–18" in e.text]) == 2)
    requests = customer.driver.execute_script("return window.__parleyRequests;")
    expect(requests[:3] == ["POST /chat/support/messages", "POST /chat/support/session", "POST /chat/support/messages"],
           f"the requests around a 401: {requests}")
    check("a 429 shows 'Slow down' and the message goes after Retry-After; after a 401 the session is opened again")

    # A send whose answer is cut after the server stored it: the widget sends it again with
    # the same client_id, and the message is in the conversation once, answered once.
    customer.driver.execute_script("window.__parleyCut = 1; window.__parleyBodies = [];")
    box = customer.driver.find_element(By.ID, "text")
    box.send_keys("about the opening hours again" + Keys.ENTER)
    customer.wait("the message box to empty after the resend",
                  lambda d: d.find_element(By.ID, "text").get_attribute("value") == "")
    bodies = [json.loads(body) for body in customer.driver.execute_script("return window.__parleyBodies;")]
    expect(len(bodies) == 2 and bodies[0] == bodies[1] and bodies[0].get("client_id"),
           f"the cut send and its resend: {bodies}")
    customer.wait("the third answer about opening hours",
                  lambda d: len([e for e in widget_messages(customer) if "We are open 9–18" in e.text]) == 3)
    sent = [e for e in widget_messages(customer) if "about the opening hours again" in e.text]
    expect(len(sent) == 1, f"the resent message shows {len(sent)} times in the widget")
    check("a send whose answer was cut goes again with the same client_id: stored once, answered once")

    # 3. The refund flow: a ticket in nina's console, live.
    send(customer, "/refund")
    answer = find_message(customer, "the quoted answer to /refund", bot_text("Let's sort this out."))
    quote = answer.find_element(By.CSS_SELECTOR, "blockquote.quote")
    expect(quote.text == "/refund", f"the quote shows {quote.text!r}")
    answers = len([e for e in widget_messages(customer) if "We are open 9–18" in e.text])
    expect(answers == 3, f"the resent message was answered {answers - 2} times, not once")
    find_message(customer, "the bot's 👀 on /refund, live",
                 lambda e: "from-visitor" in e.get_attribute("class") and "/refund" in e.text and
                 e.find_elements(By.XPATH, ".//button[contains(@class, 'chip') and contains(., '\U0001F440 1')]"))
    find_message(customer, "'What is your order number?'", bot_text("What is your order number?"))
    check("/refund: the bot's answer quotes it, its 👀 reaction shows on the visitor's message live")
    send(customer, ORDER)
    find_message(customer, "the order card", bot_text(f"Order {ORDER}: refund requested"))
    item = agent.wait("the refund ticket in the console (no reload)",
                      lambda d: ticket_item(agent, f"Refund for order {ORDER}"))
    expect(agent.driver.execute_script("return window.__parleyNoReload === true;"), "the console page was reloaded")
    key = item.get_attribute("data-ticket")
    queue, number = key.split("/")
    expect(queue == "agents", f"ticket {key} is not in queue agents")
    expect(NAME in item.text, f"the ticket does not show the customer's name as text: {item.text!r}")
    not_pwned(agent)
    check(f"the refund flow opens ticket {queue} #{number}; it appears in nina's console without a reload, "
          "the name <script>… as text")

    item.find_element(By.CSS_SELECTOR, "button.select").click()
    agent.wait("the ticket's conversation", lambda d: d.find_element(By.ID, "ticket-view").is_displayed())

    # A slow broadcast (through the admin API) to visitors of its own, for the console's progress
    # bar further on.
    listeners = []
    for index in range(BROADCAST_SIZE):
        status, _, body = call("POST", f"{base}/chat/support/session", body={"name": f"Listener {index}"},
                               headers={"Origin": base, "Content-Type": "application/json"})
        expect(status == 200, f"a listener's session: {status} {body[:200]!r}")
        listeners.append("user:" + json.loads(body)["visitor"])
    admin = {"Authorization": f"Bearer {os.environ['PARLEY_ADMIN_TOKEN']}", "Content-Type": "application/json"}
    status, _, body = call("POST", f"{base}/api/v1/broadcasts", headers=admin,
                           body={"id": BROADCAST, "bot": "announcer", "to": listeners,
                                 "text": "A browser test broadcast", "rate": "3/s"})
    expect(status in (200, 201, 202), f"starting the broadcast {BROADCAST}: {status} {body[:300]!r}")
    def progress(driver):
        for item in driver.find_elements(By.CSS_SELECTOR, "#broadcasts li"):
            label = item.find_element(By.TAG_NAME, "label")
            if BROADCAST in label.text:
                bar = driver.find_element(By.ID, label.get_attribute("for"))
                expect(bar.tag_name == "progress" and bar.get_attribute("max") == str(BROADCAST_SIZE),
                       f"the broadcast's bar: <{bar.tag_name}> max {bar.get_attribute('max')}")
                return float(bar.get_attribute("value"))
        return None
    value = agent.wait(f"the broadcast {BROADCAST} with a labelled progress bar in the console",
                       lambda d: (lambda found: None if found is None else (found,))(progress(d)))[0]
    expect(0 <= value <= BROADCAST_SIZE, f"the broadcast's bar at {value}")
    # Its progress is recorded in batches (all at once for so few recipients): the job is seen
    # leaving the list when it is done, live.
    agent.wait(f"the finished broadcast {BROADCAST} leaving the console's list", lambda d: progress(d) is None, timeout=30)
    check("the console shows the running broadcast with a labelled progress bar, and drops it when done, live")

    # 4. Markup from the customer is text, in the widget and in the console.
    send(customer, XSS)
    injected = "#messages img[src='x'], #messages img[src$='/x']"
    customer.wait("the customer's <img …> message (as text, or as an injected img element)",
                  lambda d: d.find_elements(By.CSS_SELECTOR, injected) or
                  [e for e in widget_messages(customer) if "from-visitor" in e.get_attribute("class") and XSS in e.text])
    expect(not customer.driver.find_elements(By.CSS_SELECTOR, "#messages img[src='x'], img[src$='/x']"),
           "an img element with src=x exists in the widget")
    no_alert(customer)
    check("<img src=x onerror=alert(1)> from the customer shows as literal text in the widget (no img, no alert)")
    agent.wait("the <img …> message in the console's conversation (as text, or as an injected img element)",
               lambda d: d.find_elements(By.CSS_SELECTOR, "#conversation img") or
               [e for e in d.find_elements(By.CSS_SELECTOR, "#conversation li") if XSS in e.text])
    expect(not agent.driver.find_elements(By.CSS_SELECTOR, "#conversation img, img[src='x'], img[src$='/x']"),
           "the console made an img element from the message")
    no_alert(agent)
    not_pwned(agent)
    check("... and in the console's conversation (no img, no alert)")

    # 5. nina takes the ticket and replies; omar may not touch it.
    take = agent.driver.find_element(By.ID, "take")
    if take.is_enabled():
        take.click()
    agent.wait("nina holding the ticket", lambda d: detail(agent, "Holder") == "nina")
    agent.wait("the reply box enabled", lambda d: d.find_element(By.ID, "reply-button").is_enabled())
    agent.driver.find_element(By.ID, "reply-text").send_keys(REPLY)
    agent.driver.find_element(By.ID, "reply-button").click()
    find_message(customer, "nina's reply in the widget", bot_text(REPLY))
    agent.wait("nina's reply in the console's conversation",
               lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, "#conversation li") if REPLY in e.text])
    check("nina takes the ticket and replies; the customer sees the reply")
    agent.driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0);")
    agent.driver.save_screenshot(os.path.join(args.screenshots, "console.png"))

    bearer = {"Authorization": f"Bearer {omar}"}
    status, _, _ = call("GET", f"{base}/console/api/tickets/{queue}/{number}", headers=bearer)
    expect(status == 403, f"omar (queue phone) reading {key}: {status}, not 403")
    status, _, _ = call("POST", f"{base}/console/api/tickets/{queue}/{number}/take", body={},
                        headers=dict(bearer, **{"Content-Type": "application/json"}))
    expect(status == 403, f"omar (queue phone) taking {key}: {status}, not 403")
    status, _, _ = call("GET", f"{base}/console/api/tickets/{queue}/{number}", headers={"Authorization": f"Bearer {nina}"})
    expect(status == 200, f"nina reading {key} with her token: {status}")
    check("omar (queue phone) gets 403 for the agents-queue ticket, reading and taking")

    # 6. Resolved: the bot answers the customer again.
    agent.driver.find_element(By.ID, "resolve").click()
    agent.wait("the ticket resolved", lambda d: detail(agent, "Status") == "resolved")
    find_message(customer, "the survey after the resolve", bot_text("How did we do?"))
    send(customer, "5")
    find_message(customer, "the survey's thanks", bot_text("Thanks for rating us 5!"))
    cards = len(customer.driver.find_elements(By.CSS_SELECTOR, "#messages .card.link"))
    send(customer, "/docs")
    customer.wait("a second link card after the resolve",
                  lambda d: len(d.find_elements(By.CSS_SELECTOR, "#messages .card.link")) > cards)
    check("nina resolves the ticket; the bot answers the customer again (survey, then /docs)")

    # 7. Cross-origin writes, another visitor's stream, the CSP.
    cookie = customer.driver.get_cookie("parley_chat")
    expect(cookie is not None and cookie.get("httpOnly"), f"the session cookie: {cookie}")
    session = {"Cookie": f"parley_chat={cookie['value']}", "Content-Type": "application/json"}
    status, _, _ = call("POST", f"{base}/chat/support/messages", body={"text": "from evil"},
                        headers=dict(session, Origin="https://evil.example"))
    expect(status == 403, f"a POST from Origin https://evil.example answered {status}, not 403")
    check("a POST to /chat/support/messages from https://evil.example is refused with 403 (with the visitor's cookie)")

    status, headers, body = call("POST", f"{base}/chat/support/session", body={"name": "Mallory"},
                                 headers={"Origin": base, "Content-Type": "application/json"})
    expect(status == 200, f"a second session: {status} {body[:200]!r}")
    second = json.loads(body)
    set_cookie = headers.get("Set-Cookie", "")
    expect(set_cookie.startswith("parley_chat="), f"the second session's Set-Cookie: {set_cookie!r}")
    expect(second.get("visitor") and second["visitor"] != "", f"second session: {second}")
    second_cookie = set_cookie.split(";", 1)[0]
    marker = "second visitor here"
    status, _, body = call("POST", f"{base}/chat/support/messages", body={"text": marker},
                           headers={"Origin": base, "Content-Type": "application/json", "Cookie": second_cookie})
    expect(status == 202, f"the second visitor's message: {status} {body[:200]!r}")
    text = read_stream_until(f"{base}/chat/support/events?after=0", {"Cookie": second_cookie},
                             lambda seen: marker in seen and "Sorry, I didn't get that" in seen, timeout=WAIT)
    expect(marker in text, f"the second visitor's stream lacks their own message: {text[:500]!r}")
    for secret in [ORDER, REPLY, "Bob Stone", XSS, "Eve"]:
        expect(secret not in text, f"the second visitor's stream holds the first visitor's {secret!r}")
    status, _, _ = call("GET", f"{base}/chat/support/events")
    expect(status == 401, f"the event stream without a session cookie answered {status}, not 401")
    check("a second visitor's stream holds none of the first visitor's messages; none without a cookie")

    # Cards with hostile values (the test's own bot `hostile`): nothing active is made of them.
    page = customer.driver
    page.get(f"{base}/chat/hostile")
    customer.wait("the hostile bot's widget", lambda d: d.find_element(By.ID, "start-button").is_displayed())
    expect(page.find_element(By.ID, "chat-title").text == "Hostile <b>bot</b>" and page.title == "Chat with Hostile <b>bot</b>",
           f"the bot's name on the page: {page.find_element(By.ID, 'chat-title').text!r}, title {page.title!r}")
    page.find_element(By.ID, "start-button").click()
    customer.wait("the message box", lambda d: d.find_element(By.ID, "text").is_displayed())
    send(customer, "/cards")
    find_message(customer, "the hostile bot's 'done'", bot_text("done"))
    hrefs = [a.get_attribute("href") for a in page.find_elements(By.CSS_SELECTOR, "#messages a")]
    expect(not hrefs, f"links were made from hostile URLs: {hrefs}")
    images = [i.get_attribute("src") for i in page.find_elements(By.CSS_SELECTOR, "#messages img")]
    expect(not images, f"images were made from hostile URLs: {images}")
    text = page.find_element(By.ID, "messages").text
    for shown in ["<img src=x onerror=alert(1)>", "<script>alert(2)</script>", "<b>Mallory</b>", "javascript:alert(4)"]:
        expect(shown in text, f"{shown!r} is not shown as text: {text[-600:]!r}")
    expect(not page.find_elements(By.CSS_SELECTOR, "#messages b, #messages script"), "markup from a card became elements")
    no_alert(customer)
    not_pwned(customer)
    check("cards with javascript:/data: URLs and markup (and a bot named with markup) render inert, as text")

    # The embeddable script, on a page of the listener's own (frame-ancestors allows 'self').
    page = customer.driver
    page.get(f"{base}/chat/support")
    page.execute_script("""
        var script = document.createElement("script");
        script.src = "/chat/embed.js"; script.setAttribute("data-bot", "support"); script.async = true;
        document.body.appendChild(script);""")
    button = customer.wait("the embed script's floating button",
                           lambda d: d.find_elements(By.CSS_SELECTOR, "button[aria-controls='parley-chat-support']"))[0]
    expect(button.get_attribute("aria-expanded") == "false", "the floating button starts expanded")
    button.click()
    frame = customer.wait("the widget's iframe", lambda d: d.find_elements(By.ID, "parley-chat-support"))[0]
    expect(frame.get_attribute("src") == f"{base}/chat/support" and button.get_attribute("aria-expanded") == "true",
           f"iframe src {frame.get_attribute('src')}, aria-expanded {button.get_attribute('aria-expanded')}")
    page.switch_to.frame(frame)
    customer.wait("the widget inside the iframe", lambda d: d.find_element(By.ID, "messages") and
                  (d.find_element(By.ID, "name").is_displayed() or d.find_element(By.ID, "text").is_displayed()))
    page.switch_to.default_content()
    check("embed.js adds a floating button that opens the widget of data-bot in an iframe")

    # Accessibility, in the DOM as built: a main landmark, the live log, every control named.
    unnamed_script = """
        var problems = [];
        if (!document.querySelector("main")) problems.push("no <main>");
        var log = document.querySelector("[role=log]");
        if (!log || log.getAttribute("aria-live") !== "polite") problems.push("no role=log aria-live=polite");
        document.querySelectorAll("button").forEach(function (b) {
            if (!(b.getAttribute("aria-label") || b.textContent).trim()) problems.push("a button without a name");
        });
        document.querySelectorAll("input, textarea, progress").forEach(function (c) {
            if (c.type === "hidden") return;
            if (!(c.labels && c.labels.length) && !c.getAttribute("aria-label")) problems.push("an unlabelled " + c.tagName + " #" + c.id);
        });
        if (document.querySelector("[tabindex]:not([tabindex='0']):not([tabindex='-1'])")) problems.push("a positive tabindex");
        return problems;"""
    for browser, url in ((agent, None), (customer, f"{base}/chat/support")):
        if url:
            browser.driver.get(url)
            browser.wait("the widget page", lambda d: d.find_element(By.ID, "messages"))
        problems = browser.driver.execute_script(unnamed_script)
        expect(not problems, f"{browser.name}: accessibility: {problems}")
    check("both pages: a <main> landmark, a polite live log, every button, field and progress bar named")

    for browser in (customer, agent):
        violations = [entry["message"] for entry in browser.console_log()
                      if "Content Security Policy" in entry.get("message", "") or "Uncaught" in entry.get("message", "")]
        expect(not violations, f"{browser.name}: CSP violations or script errors: {violations}")
    check("no Content-Security-Policy violation or script error in the widget or the console")

    if args.docs_images:
        os.makedirs(args.docs_images, exist_ok=True)
        for name in ("widget.png", "console.png"):
            shutil.copyfile(os.path.join(args.screenshots, name), os.path.join(args.docs_images, name))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--docs-images", help="copy the screenshots here too (docs/images)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    args = parser.parse_args()
    for variable in ("NINA_TOKEN", "OMAR_TOKEN", "PARLEY_ADMIN_TOKEN"):
        if len(os.environ.get(variable, "")) < 16:
            print(f"browser-test: setup failed: {variable} must hold a token of at least 16 characters", file=sys.stderr)
            return 2
    browsers = []
    try:
        try:
            customer = Browser("widget", args.chromium, args.chromedriver, "480,960")
            browsers.append(customer)
            agent = Browser("console", args.chromium, args.chromedriver, "1280,1000")
            browsers.append(agent)
        except WebDriverException as error:
            print(f"browser-test: setup failed: cannot start Chromium through chromedriver: {error}", file=sys.stderr)
            return 2
        try:
            run(args, customer, agent)
        except (CheckFailed, WebDriverException, OSError, ValueError, KeyError) as error:
            what = str(error) if isinstance(error, CheckFailed) else f"{type(error).__name__}: {error}"
            print(f"browser-test: FAILED: {what}", file=sys.stderr)
            os.makedirs(args.screenshots, exist_ok=True)
            for browser in browsers:
                path = os.path.join(args.screenshots, f"failure-{browser.name}.png")
                try:
                    browser.driver.save_screenshot(path)
                    print(f"browser-test: {browser.name} screenshot: {path}", file=sys.stderr)
                except WebDriverException:
                    pass
                print(f"browser-test: {browser.name} console log:", file=sys.stderr)
                for entry in browser.console_log():
                    print(f"  {entry.get('level')}: {entry.get('message')}", file=sys.stderr)
            return 1
        print(f"browser-test: all {len(CHECKS)} checks passed", flush=True)
        return 0
    finally:
        for browser in browsers:
            browser.quit()


if __name__ == "__main__":
    sys.exit(main())
