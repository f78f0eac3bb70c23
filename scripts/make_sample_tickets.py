#!/usr/bin/env python3
"""Generate the synthetic customer-support tickets shipped with Triage.

The output, ``resources/sample_tickets.csv``, holds tickets for an imaginary
SaaS product ("Workloom") with the columns ``id,subject,text,category``.
``category`` is the gold label: ``billing``, ``technical`` or ``account``,
with the same number of tickets per label, in a shuffled order.

Each ticket is assembled from pools of sentence templates with slots (amounts,
invoice numbers, dates, error codes, browsers, ...).  The first sentence of
``text`` always states the problem on its own, because some benchmarks use it
as a short ticket.  Ticket lengths follow a long-tailed distribution; the
longest tickets carry pasted logs, stack traces, charge histories or forwarded
email threads.

Everything is drawn from one ``random.Random(seed)``, so the output is
byte-identical between runs.  Only the standard library is used.  Another
``--n`` or ``--seed`` gives a different (reshuffled) set, not an extension of
the shipped one.

Length targets of the shipped set, measured as the SmolLM2 chat prompt
(system prompt + ticket text) around each ``text``: min ~48, median ~94,
about 10% above 180, a handful above 300, max ~449 tokens.  The generator
only estimates tokens (see estimate_tokens); the LENGTH constants below and
DEFAULT_SEED were tuned against the real tokenizer.

Regenerate the shipped file (from the repository root)::

    python scripts/make_sample_tickets.py

Make a bigger or different set::

    python scripts/make_sample_tickets.py --n 1200 --seed 7 --out /tmp/tickets.csv
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import math
import random
import re
import sys
import unicodedata
from pathlib import Path

DEFAULT_N = 600
DEFAULT_SEED = 24
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "resources" / "sample_tickets.csv"

CATEGORIES = ("billing", "technical", "account")
PRODUCT = "Workloom"

# ---------------------------------------------------------------------------
# Length model, in estimated tokens of the ticket text (see estimate_tokens).
# ---------------------------------------------------------------------------
MIN_TARGET_TOKENS = 10          # floor added to every drawn length (estimate)
LENGTH_MEDIAN_EXCESS = 51       # median of the lognormal part, added to the floor
LENGTH_SIGMA = 1.05             # spread of the lognormal part
VERY_LONG_FROM = 230            # the lognormal part is redrawn above this, ...
VERY_LONG_SHARE = 0.015         # ... and this share of tickets is drawn flat from
MAX_TARGET_TOKENS = 405         # VERY_LONG_FROM..MAX (a handful of very long tickets)
LONG_MATERIAL_FROM = 150        # targets above this get pasted material
SHORT_TONE_FACTOR = 0.7         # terse writers write less
THREAD_MIN_TOKENS = 100         # a forwarded e-mail thread needs at least this much room

# ---------------------------------------------------------------------------
# Slot values
# ---------------------------------------------------------------------------
FIRST_NAMES = [
    "Anna", "Marcus", "Priya", "Tom", "Sofia", "Kenji", "Fatima", "Lukas", "Chloe", "Diego",
    "Olivia", "Mateus", "Ingrid", "Ahmed", "Grace", "Jonas", "Mei", "Patrick", "Zanele", "Ravi",
    "Elena", "Ben", "Hannah", "Omar", "Julia", "Sean", "Aiko", "Pedro", "Nina", "Kwame",
    "Laura", "Viktor", "Sara", "Daniel", "Yusuf", "Claire", "Emre", "Rosa", "Felix", "Amara",
]
LAST_NAMES = [
    "Schmidt", "Okafor", "Nguyen", "Patel", "Johansson", "García", "Kowalski", "Müller", "Brown",
    "Rossi", "Tanaka", "Dubois", "O'Brien", "Silva", "Novak", "Haddad", "Larsen", "Kim", "Moreau",
    "Fischer", "Costa", "Walsh", "Yilmaz", "Andersen", "Mensah", "Reyes", "Lindqvist", "Chen",
]
COMPANIES = [
    "Northwind Logistics", "Bluebird Studio", "Kestrel Analytics", "Hanson & Ortiz", "Lumen Dental Group",
    "Brightpath Tutoring", "Polar Bear Coffee", "Vertex Legal", "Greenleaf Landscaping", "Atlas Freight",
    "Moonrise Events", "Cobalt Robotics", "Pine & Pixel", "Harbor Health Clinic", "Quill Copywriting",
    "Redwood Realty", "Silverline Consulting", "Tandem Bikes", "Orbit Media", "Fernhill School",
    "Mosaic Architects", "Nordlicht GmbH", "Café Aurora", "Müller & Söhne", "Sunday Bakery",
    "Ironbark Construction", "Little Fox Daycare", "Helix Biotech", "Copperline Solar", "Juniper Travel",
]
DEPARTMENTS = ["marketing", "customer success", "finance", "engineering", "operations", "design",
               "sales", "HR", "product", "support"]
CITIES = ["Berlin", "Austin", "Manchester", "Lyon", "Toronto", "Melbourne", "São Paulo", "Pune",
          "Dublin", "Cape Town", "Osaka", "Rotterdam", "Denver", "Kraków", "Auckland"]
COUNTRIES = ["Brazil", "Vietnam", "Nigeria", "Romania", "Singapore", "the Netherlands", "Ukraine",
             "Indonesia", "Mexico", "Turkey", "India", "Russia", "Kenya", "Poland"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
PLANS = ["Starter", "Plus", "Pro", "Team", "Growth", "Business", "Premium", "Enterprise"]  # cheapest first
FEATURES = [
    "dashboard", "reports page", "timeline view", "board view", "calendar view", "project overview",
    "time tracking module", "client portal", "shared inbox", "task list", "analytics tab",
    "documents section", "Gantt chart", "forms builder", "comments panel", "workload view",
]
FILE_TYPES = ["CSV", "PDF", "Excel", "XLSX"]
INTEGRATIONS = ["Slack", "Salesforce", "HubSpot", "Jira", "Zapier", "Microsoft Teams", "GitHub",
                "Google Drive", "Dropbox", "Zendesk", "Pipedrive", "Outlook"]
CALENDARS = ["Google Calendar", "Outlook", "iCloud Calendar"]
DEVICES = ["iPhone 13", "iPhone 15 Pro", "Pixel 7", "Samsung Galaxy S23", "iPad Air", "OnePlus 11",
           "Galaxy Tab S8", "Redmi Note 12", "iPhone SE", "Pixel 8a"]
OSES = ["Windows 11", "Windows 10", "macOS Sonoma", "macOS Ventura", "Ubuntu 22.04", "ChromeOS",
        "Fedora 39", "macOS 14.4", "Windows 11 23H2"]
BROWSERS = ["Chrome 124", "Firefox 125", "Safari 17", "Edge", "Chrome", "Brave", "Firefox ESR",
            "Opera", "Safari", "Firefox"]
ERROR_CODES = ["E1043", "ERR_CONNECTION_RESET", "0x80070005", "SYNC_TIMEOUT", "EXPORT_FAILED_413",
               "ERR-5021", "ECONNABORTED", "RPC_DEADLINE_EXCEEDED", "E_QUOTA_EXCEEDED", "WL-3307",
               "ERR_HTTP2_PROTOCOL_ERROR", "E2210", "RENDER_FAILED", "0xC0000409"]
ERROR_MESSAGES = [
    "Unexpected token < in JSON at position 0", "Request failed with status code 500",
    "Network Error", "Failed to fetch", "Export could not be generated", "An unknown error occurred (code 7)",
    "Cannot read properties of undefined (reading 'id')", "Upstream service unavailable",
    "The operation timed out", "Payload too large", "Something went wrong, please try again",
]
HTTP_ERRORS = ["500", "502", "503", "504", "403", "404", "429", "413", "422", "500 Internal Server Error",
               "502 Bad Gateway", "504 Gateway Timeout"]
ENDPOINTS = ["/v2/projects", "/v1/tasks", "/v2/reports/export", "/v2/webhooks", "/v1/time-entries",
             "/v2/comments", "/v1/files", "/v2/search"]
TIMEZONES = ["Europe/Berlin", "America/New_York", "CET", "Asia/Tokyo", "Australia/Sydney",
             "America/Sao_Paulo", "Europe/London", "Asia/Kolkata"]
TIMEFRAMES = ["since yesterday", "since this morning", "for the past two days", "since the update last week",
              "since Monday", "for about a week", "since {date}", "since last night", "for three days now"]
ROLES = ["admin", "editor", "viewer", "owner", "member", "guest"]
CARDS = ["Visa ending in {last4}", "Mastercard ending {last4}", "Amex card ending in {last4}",
         "corporate Visa", "business Mastercard", "PayPal account", "debit card ending {last4}"]
PROMO_CODES = ["SPRING25", "WELCOME10", "BF2024", "SAVE15", "EDU50", "NONPROFIT30", "LAUNCH20", "TEAM2025"]
DESCRIPTORS = ["WORKLOOM*SUBSCR", "PAYPAL *WORKLOOM", "WLM SAAS DUBLIN IE", "WORKLOOM.IO 8832",
               "SP * WORKLOOM PLAN"]
WORKSPACES = ["acme-ops", "marketing-hq", "design-team", "Client Projects", "ops-central", "studio",
              "Support Squad", "product-team"]
SUPPORT_AGENTS = ["Sam", "Alex", "Jordan", "Priya", "Mateo", "Lena", "Chris"]
NTH = ["second", "third", "fourth"]
NUMBER_WORDS = ["three", "four", "five", "six", "several", "multiple"]

# Currencies: name, price formatter.  Prices are drawn from PRICE_POINTS.
PRICE_POINTS = [9, 12, 15, 19, 24, 29, 39, 49, 59, 79, 99, 119, 149, 199, 249, 299, 349, 480, 588, 1188]


def _fmt_dot(value: float) -> str:
    return f"{value:,.2f}"


def _fmt_comma(value: float) -> str:
    return f"{value:,.2f}".replace(",", " ").replace(".", ",")


CURRENCIES = {
    "USD": ("US dollars", 0.35, [lambda v: f"${_fmt_dot(v)}", lambda v: f"USD {_fmt_dot(v)}",
                                 lambda v: f"${v:,.0f}"]),
    "EUR": ("euros", 0.25, [lambda v: f"€{_fmt_dot(v)}", lambda v: f"{_fmt_comma(v)} €",
                            lambda v: f"EUR {_fmt_dot(v)}"]),
    "GBP": ("pounds", 0.12, [lambda v: f"£{_fmt_dot(v)}", lambda v: f"GBP {_fmt_dot(v)}"]),
    "CHF": ("Swiss francs", 0.04, [lambda v: f"CHF {_fmt_dot(v)}"]),
    "JPY": ("yen", 0.03, [lambda v: f"¥{v * 150:,.0f}"]),
    "INR": ("rupees", 0.04, [lambda v: f"₹{v * 83:,.0f}", lambda v: f"INR {v * 83:,.0f}"]),
    "AUD": ("Australian dollars", 0.05, [lambda v: f"A${_fmt_dot(v * 1.5)}", lambda v: f"AUD {_fmt_dot(v * 1.5)}"]),
    "CAD": ("Canadian dollars", 0.05, [lambda v: f"CA${_fmt_dot(v * 1.35)}"]),
    "BRL": ("reais", 0.03, [lambda v: f"R$ {_fmt_comma(v * 5)}"]),
    "SEK": ("Swedish kronor", 0.02, [lambda v: f"{v * 10.5:,.0f} kr"]),
    "PLN": ("złoty", 0.02, [lambda v: f"{_fmt_comma(v * 4)} zł"]),
}

# ---------------------------------------------------------------------------
# Category content.  Each category is a list of small, coherent topics.  A
# topic has cases (an opening sentence that states the problem on its own,
# with the subject lines that fit it), detail sentences and requests that fit
# every case of the topic, and tags that choose which generic sentences,
# troubleshooting steps and pasted material suit it.
# ---------------------------------------------------------------------------
def make_topic(tags, cases, details, asks):
    return {"tags": tags, "cases": cases, "details": details, "asks": asks}


BILLING_TOPICS = [
    make_topic(["charge"], [
        ("I was charged twice for my {plan} subscription this month.", ["Charged twice this month", "Double payment for {plan} plan"]),
        ("My card was charged {amount} twice for the same subscription.", ["Duplicate charge on my card", "Two charges of {amount}"]),
        ("There are two identical charges of {amount} from you on my card statement.", ["Duplicate charge on my statement", "Two identical charges from you"]),
        ("It looks like you billed us twice for invoice {invoice}.", ["Invoice {invoice} billed twice", "Double billing for one invoice"]),
    ], [
        "The first charge went through at {time} and the second one a few minutes later.",
        "Both charges show as completed on my {card} statement, not pending.",
        "We only have one workspace, so there should only be one subscription.",
        "The billing page lists only one payment, but my bank shows two.",
        "The second charge has a different reference number, {ref}.",
    ], ["Could you please refund the duplicate charge?", "Please refund one of the two payments."]),
    make_topic(["charge"], [
        ("I cancelled on {date} but was charged {amount} again today.", ["Charged after cancelling", "Still billed after cancellation"]),
        ("Please stop charging my card, I cancelled the {plan} plan weeks ago.", ["Stop charging my card", "Cancelled but still charged"]),
        ("Why was I charged {amount} when I cancelled last month?", ["Why was I charged again?", "Charge after cancellation"]),
        ("My annual plan renewed for {amount} although auto-renew was off.", ["Unexpected renewal charge", "Auto-renew was off but I was charged"]),
    ], [
        "I have the confirmation email from when I made the change.",
        "I made the change in the billing settings myself and saw a confirmation message.",
        "I haven't used the product at all since then.",
        "The renewal reminder email arrived after the charge had already gone through.",
    ], ["Please refund the charge and confirm that no further payments will be taken.",
        "Please cancel any future charges on this card."]),
    make_topic(["charge"], [
        ("The refund for order {order} still hasn't arrived on my card.", ["Refund not received", "Refund for order {order} still pending"]),
        ("I was promised a {amount} refund on {date}, but nothing has arrived.", ["Where is my refund?", "Promised refund never arrived"]),
        ("What is the status of my refund for invoice {invoice}?", ["Status of refund for {invoice}", "Refund status question"]),
    ], [
        "The refund was confirmed by email with reference {ref}.",
        "My bank says no refund has been initiated from your side.",
        "It has been {n_days} business days since the refund was approved.",
        "I'd prefer the refund to go back to the original card rather than as credit.",
    ], ["Can you confirm when the refund will be processed?", "Could you send me proof that the refund was issued?"]),
    make_topic(["charge"], [
        ("The annual renewal charged {amount} instead of the {amount2} we were quoted.", ["Wrong price on renewal", "Renewal charged more than quoted"]),
        ("Our last invoice is {amount} higher than it should be.", ["Overcharged on last invoice", "Invoice amount is wrong"]),
        ("The price of the {plan} plan went up without notice and I want to know why.", ["Price increase without notice", "Why did the {plan} price go up?"]),
        ("hi, why did my bill go up to {amount} this month?", ["bill went up", "Bill went up this month"]),
    ], [
        "Your pricing page still lists the {plan} plan at {amount2} per month.",
        "According to our contract we should be paying {amount2} per month.",
        "I was told by your sales rep, {colleague}, that the price was locked for the first year.",
        "Nothing about our usage or team size changed since last {period}.",
        "The invoice total doesn't match the sum of the line items.",
    ], ["Please confirm the correct amount and refund the difference.",
        "Could you explain how the new amount was calculated?"]),
    make_topic(["charge"], [
        ("We were billed for {n_seats} seats but only have {n_users} active users.", ["Billed for too many seats", "Seat count on invoice is wrong"]),
        ("Your system charged us for {n_extra} extra seats that nobody on our side added.", ["Charged for extra seats we didn't add", "Unexpected extra seats on bill"]),
        ("We removed several users in {month} but are still paying for their seats.", ["Charged for removed users", "Still paying for removed seats"]),
    ], [
        "Our team is down to {n_users} people and the members list shows exactly that.",
        "The seat count on the billing page doesn't match the members list.",
        "Invoice {invoice} lists {n_seats} seats at {amount} each.",
        "It seems the seat count on your side is out of sync with our member list.",
    ], ["Please adjust the seat count and credit us for the extra seats."]),
    make_topic(["request"], [
        ("Can you send me a corrected invoice with our company VAT number on it?", ["VAT number missing on invoice", "Need a corrected invoice"]),
        ("Please address our invoices to our new company name, {company}.", ["Company name on invoices", "Update the name on our invoices"]),
        ("Please fix the billing address on invoice {invoice} so we can pay it.", ["Invoice address change", "Wrong billing address on {invoice}"]),
        ("Finance rejected invoice {invoice} because our PO number is missing.", ["PO number missing from invoice {invoice}", "Invoice rejected, PO number missing"]),
    ], [
        "Our finance department can't process invoices without these details.",
        "Our registered details are {company}, {street}, {city}.",
        "Our purchase order number is {po}, please reference it on future invoices too.",
        "Our accounts payable team is holding the payment until the invoice is fixed.",
        "The VAT ID is {vat}, in case you need it.",
    ], ["Please send a corrected invoice as soon as possible.", "Can you update the invoice and resend it to {email}?"]),
    make_topic(["charge"], [
        ("Invoice {invoice} includes sales tax, but we are tax exempt.", ["Sales tax charged incorrectly", "We are tax exempt"]),
        ("The VAT rate on our latest invoice is {pct}%, which is wrong for our country.", ["Wrong VAT rate on invoice", "Incorrect VAT rate"]),
        ("Invoice {invoice} charges VAT although we gave you a valid VAT ID.", ["VAT charged despite valid VAT ID", "Reverse charge not applied"]),
    ], [
        "We sent our tax documentation in {month}.",
        "We are a registered business in {country}.",
        "The tax line adds {amount2} to the invoice.",
        "Our accountant noticed it during the quarterly review.",
    ], ["Please reissue the invoice without the tax and refund the difference."]),
    make_topic(["charge"], [
        ("My payment keeps getting declined when I try to renew the {plan} plan.", ["Payment keeps failing", "Can't renew, payment declined"]),
        ("Payment for invoice {invoice} failed and now we have an overdue notice.", ["Failed payment and overdue notice", "Payment failed for {invoice}"]),
        ("Our card was declined for the {amount} renewal despite having funds.", ["Card declined on renewal", "Renewal payment declined"]),
    ], [
        "The card on file expired last month and I added a new one, but the payment still fails.",
        "My bank says they never saw an authorization attempt from you.",
        "The overdue notice says the workspace will be downgraded in {n_days} days.",
        "The same card works everywhere else.",
    ], ["Can you retry the payment or send me a payment link?"]),
    make_topic(["request"], [
        ("How do I change the credit card used for our monthly payments?", ["Update payment method", "How to change credit card"]),
        ("I need to move our subscription payments from my personal card to the company card.", ["Change card for subscription payments", "Switch to company card"]),
    ], [
        "We want to use the company {card} instead.",
        "I can't find where to change the payment method in the billing settings.",
        "The current card expires at the end of {month}.",
    ], ["Please tell me how to update the card before the next renewal."]),
    make_topic(["charge"], [
        ("We paid invoice {invoice} by bank transfer but it still shows as unpaid.", ["Invoice shows unpaid but we paid", "Bank transfer not matched"]),
        ("You say invoice {invoice} is overdue, but we paid it weeks ago.", ["Invoice {invoice} already paid", "Overdue reminder for a paid invoice"]),
    ], [
        "We paid by wire transfer with the invoice number in the description.",
        "The payment reference on our bank statement is {ref}.",
        "The money left our account on {date}.",
    ], ["Can you mark invoice {invoice} as paid?", "Could you check with your finance team whether the transfer arrived?"]),
    make_topic(["request"], [
        ("Can we pay by bank transfer instead of credit card?", ["Pay by invoice instead of card?", "Bank transfer payment option"]),
        ("Our finance team needs to pay by invoice with net 30 terms instead of by card.", ["Invoice billing with net 30", "Paying by invoice instead of card"]),
    ], [
        "Our company policy doesn't allow recurring card payments.",
        "We are on the {plan} plan with {n_users} users.",
        "We'd be happy to switch to annual billing at the same time.",
    ], ["Please let me know if this is possible and what you need from us."]),
    make_topic(["charge"], [
        ("I downgraded to {plan2} last month but I'm still being billed for {plan}.", ["Downgrade not reflected in billing", "Still billed for {plan} after downgrade"]),
        ("My {plan} upgrade was charged in full ({amount}) instead of prorated.", ["Question about proration on upgrade", "Upgrade not prorated"]),
    ], [
        "It looks like the proration was calculated from the wrong date.",
        "The plan change was meant to apply from the next billing cycle.",
        "The billing page shows the new plan, but the invoice doesn't.",
    ], ["Please correct the plan on our billing and credit the difference."]),
    make_topic(["request"], [
        ("I'd like to switch from monthly to annual billing and get this month's payment credited.", ["Switch to annual billing", "Monthly to annual billing question"]),
    ], [
        "Your pricing page says annual billing saves {pct}%.",
        "We've been paying {amount} a month since {year}.",
    ], ["Can you make the switch for us?"]),
    make_topic(["request"], [
        ("Can I get a prorated refund for the unused months of my annual plan?", ["Prorated refund for annual plan", "Refund for unused months"]),
        ("We're closing the business and want a refund for the rest of our annual subscription.", ["Refund remaining annual subscription", "Closing business, refund request"]),
    ], [
        "We paid {amount} for the year in {month}.",
        "We haven't used the product since {month}.",
    ], ["Please let me know how much would be refunded."]),
    make_topic(["charge"], [
        ("The discount code {promo} was not applied to my last invoice.", ["Discount code not applied", "Promo code {promo} didn't work"]),
        ("I was promised a {pct}% nonprofit discount but the invoice shows the full price.", ["Nonprofit discount missing", "Missing {pct}% discount on invoice"]),
        ("My student discount disappeared when the subscription renewed on {date}.", ["Student discount disappeared", "Discount gone after renewal"]),
    ], [
        "The invoice shows the full {amount} instead of the discounted price.",
        "We qualified for the discount when we signed up.",
        "Nothing about our eligibility has changed.",
    ], ["Please apply the discount retroactively to the last invoice."]),
    make_topic(["charge"], [
        ("I don't recognize a {amount} charge from you on my card statement.", ["Unknown charge from your company", "Charge I don't recognize"]),
        ("Charged {amount} for a plan I never signed up for, please refund.", ["Charged for a plan I didn't buy", "Unauthorized charge on my card"]),
    ], [
        "The statement descriptor just says {descriptor}.",
        "Nobody on our team remembers signing up for a paid plan.",
        "I only ever used the free version.",
    ], ["Could you explain what this charge is for?", "I want a full refund."]),
    make_topic(["charge"], [
        ("Our free trial converted to a paid plan without any warning and charged {amount}.", ["Trial converted without warning", "Charged when trial ended"]),
    ], [
        "We did not receive any reminder before the trial ended.",
        "We had already decided not to continue after the trial.",
    ], ["Please refund the charge and close the subscription."]),
    make_topic(["request"], [
        ("I need copies of all our invoices from {year} for our accountant.", ["Need copies of last year's invoices", "Invoice copies for {year}"]),
        ("I can't find the receipts for our payments since {month} anywhere in the billing section.", ["Missing receipts for our payments", "Where can I download receipts?"]),
        ("I never got a receipt for my {amount} payment.", ["No receipt for my payment", "Receipt missing for my payment"]),
    ], [
        "Our accountant needs them as PDF files, not just the web view.",
        "Receipts used to arrive by email automatically but stopped at some point.",
        "Our billing contact changed to {email}, so please send them there too.",
    ], ["Could you email me the documents as PDFs?"]),
    make_topic(["charge"], [
        ("We were charged in {currency_name} instead of {currency_name2} on the latest invoice.", ["Billed in the wrong currency", "Invoice in wrong currency"]),
        ("The currency conversion on my last payment cost me far more than the listed price.", ["Currency conversion fees on payment", "Paid more due to currency conversion"]),
    ], [
        "Our billing settings have always been in {currency_name2}.",
        "My bank added a foreign transaction fee because of the currency.",
    ], ["Can you switch our billing currency back and refund the conversion fee?"]),
    make_topic(["charge"], [
        ("I want to dispute the {amount2} late fee on invoice {invoice}.", ["Dispute late fee on invoice", "Late payment fee is unfair"]),
    ], [
        "The payment was only two days late because of a bank holiday.",
        "We have always paid on time before this.",
    ], ["Can you reverse the late fee?"]),
    make_topic(["request"], [
        ("Can you send us a quote for moving {n_users} users to the {plan} plan?", ["Quote for {plan} upgrade", "Price quote request for {n_users} users"]),
    ], [
        "Our procurement team needs a formal quote before approving the purchase.",
        "We would pay annually if there is a discount for that.",
    ], ["Could you send the quote to {email}?"]),
]

TECHNICAL_TOPICS = [
    make_topic(["web"], [
        ("Exporting reports to {file_type} fails with error {error} every time.", ["Export to {file_type} not working", "Report export fails"]),
        ("The export button in the {feature} does nothing when I click it.", ["Export button does nothing", "Can't export from {feature}"]),
    ], [
        "Smaller exports with under {n_items} rows still work.",
        "It looks like the job runs, but the output file is empty.",
        "I can reproduce it every time by opening the {feature} and clicking Export.",
        "We need these exports for a client report this week.",
    ], ["Is there another way to get the data out until this is fixed?"]),
    make_topic(["web"], [
        ("PDF exports cut off the last column of every table.", ["PDF export cuts off columns", "Broken PDF export layout"]),
        ("Dates in exported reports are off by one day.", ["Wrong dates in exports", "Export dates off by one day"]),
    ], [
        "The preview in the browser looks correct.",
        "It affects every report we export, old and new.",
        "The timezone in my profile is set to {tz}.",
        "It used to work before the last release.",
    ], ["Can you check the export code for this?"]),
    make_topic(["integration"], [
        ("Our {integration} integration stopped syncing {timeframe}.", ["{integration} sync stopped", "{integration} integration not syncing"]),
        ("The {integration} connector shows connected but no data comes through.", ["{integration} connected but no data", "{integration} integration broken"]),
    ], [
        "The last successful sync according to the log was on {date} at {time}.",
        "The sync log says completed but no new items appear.",
        "Our team relies on the {integration} updates to see new tasks.",
    ], ["Could you check whether something changed with the integration on your side?"]),
    make_topic(["integration"], [
        ("Two-way sync with {integration} is creating duplicate records.", ["Duplicate records from {integration} sync", "{integration} sync creates duplicates"]),
        ("Every item we create shows up two or three times after the {integration} sync runs.", ["Items duplicated after sync", "Sync duplicating our items"]),
    ], [
        "The duplicates all have the same timestamp.",
        "We now have hundreds of duplicates to clean up.",
        "It started after we changed the field mapping.",
    ], ["Is there a way to remove the duplicates in bulk?"]),
    make_topic(["integration"], [
        ("Events created in the calendar view don't show up in {calendar} anymore.", ["Calendar sync not working", "Events missing in {calendar}"]),
        ("Due dates show up one day early in {calendar}.", ["Wrong dates in {calendar}", "Calendar sync shows wrong dates"]),
    ], [
        "The calendar subscription link is still the same.",
        "Events created before {month} are all correct.",
        "My timezone is set to {tz} in both places.",
    ], ["Can you check the calendar feed for our workspace?"]),
    make_topic(["mobile"], [
        ("The mobile app crashes when I open the {feature} on my {device}.", ["Mobile app crashes", "App crashing on {device}"]),
        ("the app on my {device} closes itself every time i try to add a photo", ["app keeps closing", "App crashes when adding photo"]),
    ], [
        "This is happening on a {device} running app version {version}.",
        "I reinstalled the app twice and the crash still happens.",
        "It works on the web version, only the mobile app is affected.",
        "It started after the last app update.",
    ], ["Is there a beta build with a fix I could try?"]),
    make_topic(["mobile"], [
        ("Push notifications on Android stopped completely after the latest app update.", ["Push notifications stopped", "No push notifications on Android"]),
        ("I no longer get push notifications on my {device}.", ["Push notifications not arriving", "No notifications on {device}"]),
    ], [
        "Notifications are enabled in the phone settings.",
        "Email notifications still arrive normally.",
        "Battery optimisation is turned off for the app.",
    ], ["Is this a known issue with the current version?"]),
    make_topic(["mobile"], [
        ("The offline mode on the mobile app loses everything I entered while offline.", ["Offline entries lost", "Offline mode loses data"]),
    ], [
        "The missing entries were all created while I had no signal.",
        "The app showed them as saved at the time.",
    ], ["Is there any way to recover the entries?"]),
    make_topic(["desktop"], [
        ("The desktop app won't start on {os} since the {version} update.", ["Desktop app won't start", "App not starting after update"]),
        ("The desktop app only shows a white screen on {os}.", ["White screen in desktop app", "Desktop app shows blank window"]),
    ], [
        "Rolling back to the previous version fixes it, but then I miss the new features.",
        "The installer finished without any errors.",
        "The web version works fine in the meantime.",
    ], ["Where can I download the previous version in the meantime?"]),
    make_topic(["desktop"], [
        ("The app uses 100% CPU on my {os} machine whenever it's open.", ["High CPU usage from desktop app", "Desktop app using 100% CPU"]),
        ("The desktop app freezes for several seconds whenever I type in a comment.", ["App freezes on {os}", "Desktop app freezing while typing"]),
    ], [
        "The CPU fan goes crazy and the laptop gets really hot.",
        "Memory usage of the app climbs to over {n_gb} GB after an hour.",
        "After about {n_minutes} minutes the app becomes unresponsive.",
    ], ["Is there a setting I can change to make it usable again?"]),
    make_topic(["web"], [
        ("The dashboard is extremely slow, pages take over {n_seconds} seconds to load.", ["Dashboard extremely slow", "Very slow page loads"]),
        ("The {feature} has been stuck loading {timeframe} and never finishes.", ["{feature} stuck loading", "{feature} never finishes loading"]),
        ("Everything in the {feature} has become painfully slow since the last release.", ["Performance issues since last release", "{feature} very slow"]),
    ], [
        "The spinner just keeps turning and nothing happens.",
        "It's slow both on our office network and on my home Wi-Fi.",
        "Other websites load instantly, so it's not our connection.",
    ], ["Could you check whether our workspace is on a slow server?"]),
    make_topic(["web"], [
        ("Saving changes in the {feature} fails with a {http} error.", ["Error {http} when saving", "Changes not saving in {feature}"]),
        ("Clicking Save in the {feature} gives 'Something went wrong' and loses my changes.", ["'Something went wrong' on save", "Save button loses my changes"]),
    ], [
        "The request ID from the error dialog is {req_id}.",
        "When I refresh the page, my edits are gone.",
        "It's been happening intermittently, maybe one out of three attempts.",
        "The console shows a {http} response from api.workloom.io.",
    ], ["Is there a way to recover the lost changes?"]),
    make_topic(["web"], [
        ("Bulk editing more than {n_items} items throws error {error}.", ["Bulk edit throws error", "Error {error} on bulk edit"]),
    ], [
        "Editing a single item still works.",
        "Smaller batches of about 20 items go through.",
    ], ["Is there a limit on bulk edits that isn't documented?"]),
    make_topic(["web"], [
        ("i get error {error} when opening the {feature}, nothing else loads", ["getting error {error}", "{feature} won't open"]),
        ("The {feature} shows an error page with code {error} instead of loading.", ["Error page in {feature}", "{feature} shows error {error}"]),
    ], [
        "The error message says '{error_msg}'.",
        "The rest of the app works.",
        "The console shows a {http} response from api.workloom.io.",
    ], ["Can you look at the logs for our workspace?"]),
    make_topic(["api"], [
        ("The API returns {http} for every request to the {endpoint} endpoint.", ["API returning {http} errors", "API errors on {endpoint}"]),
        ("Every API call to {endpoint} times out after {n_seconds} seconds.", ["API timeouts on {endpoint}", "API calls timing out"]),
    ], [
        "Rate limit headers show we are nowhere near the limit.",
        "Response times went from under a second to over {n_seconds} seconds.",
        "I generated a new API key, same result.",
    ], ["Could you check the server logs for request {req_id}?"]),
    make_topic(["api"], [
        ("Webhooks to our endpoint have not fired since {date}.", ["Webhooks not firing", "No webhook deliveries since {date}"]),
        ("Webhook deliveries to our server fail with a timeout according to the delivery log.", ["Webhook deliveries timing out", "Webhook delivery failures"]),
    ], [
        "Our webhook endpoint returns 200 when we test it with curl.",
        "Our workflow automation that depends on this is failing too.",
        "The webhook is still listed as active in the settings.",
    ], ["Can you replay the missed events once it's fixed?"]),
    make_topic(["web"], [
        ("The page layout is completely broken in {browser} on {os}.", ["Layout broken in {browser}", "Page layout broken"]),
        ("Buttons and menus overlap each other in {browser} since the last update.", ["Overlapping buttons and menus", "UI elements overlapping in {browser}"]),
    ], [
        "Zooming the browser back to 100% did not fix the layout.",
        "The issue is the same in incognito mode with all extensions disabled.",
        "It looks the same on my laptop and on my desktop machine.",
    ], ["Is {browser} still a supported browser?"]),
    make_topic(["web"], [
        ("Charts on the dashboard show blank boxes instead of data in {browser}.", ["Charts not rendering", "Blank charts on dashboard"]),
        ("The analytics tab shows 'No data' even though we have months of activity.", ["Analytics shows no data", "Empty analytics tab"]),
    ], [
        "The numbers are correct in the exported report.",
        "When I open the developer tools there are dozens of red errors.",
        "Colleagues see the same empty charts.",
    ], ["Can you check whether the analytics service is running for our workspace?"]),
    make_topic(["web"], [
        ("Images in comments are not rendering, I just see a broken image icon.", ["Images not showing in comments", "Broken images in comments"]),
        ("Attachments in the {feature} download as empty 0 KB files.", ["Attachments download empty", "Empty file downloads"]),
    ], [
        "It affects files uploaded by everyone on our team.",
        "Files uploaded before {month} open fine.",
        "Opening the file link directly shows an XML error page.",
    ], ["Are the files still stored on your side?"]),
    make_topic(["web"], [
        ("Drag and drop stopped working on the board view in {browser}.", ["Drag and drop broken", "Can't drag cards on board"]),
        ("Keyboard shortcuts stopped working in the editor {timeframe}.", ["Keyboard shortcuts stopped working", "Editor shortcuts broken"]),
    ], [
        "The issue is the same in incognito mode with all extensions disabled.",
        "It worked until the update on {date}.",
        "It happens in every project I open.",
    ], ["Is this a known bug in the latest release?"]),
    make_topic(["email"], [
        ("Notifications are not being sent to anyone on our team {timeframe}.", ["Notifications not being sent", "No email notifications"]),
        ("Scheduled reports were not delivered this morning even though the schedule is on.", ["Scheduled reports not delivered", "Missing scheduled report emails"]),
    ], [
        "We checked the spam folders and there is nothing there either.",
        "The notification settings for everyone are switched on.",
        "The activity log says the emails were sent at {time}.",
    ], ["Can you check whether the emails are leaving your servers?"]),
    make_topic(["email"], [
        ("Email notifications arrive with broken formatting and missing links.", ["Broken formatting in notification emails", "Notification emails look broken"]),
    ], [
        "It happens in Outlook and Gmail.",
        "The links that do show up point to a page that doesn't exist.",
    ], ["Could you check the email templates?"]),
    make_topic(["web"], [
        ("The CSV import fails at row {row} with 'invalid date format'.", ["CSV import failing", "Import error at row {row}"]),
    ], [
        "The same file opens fine in Excel without any warnings.",
        "The file is UTF-8 encoded with comma separators.",
        "Importing a similar file worked in {month}.",
    ], ["Which date format does the importer expect?"]),
    make_topic(["web"], [
        ("File uploads larger than {n_mb} MB fail halfway through with a network error.", ["File uploads fail", "Large uploads failing"]),
        ("Uploading files in the {feature} stops at 99% and never finishes.", ["Uploads stuck at 99%", "File upload never finishes"]),
    ], [
        "The problem only happens with files that have non-English characters in the name.",
        "Smaller files under {n_small} MB upload without problems.",
        "Our connection is a stable fibre line.",
    ], ["Is there an upload limit we are hitting?"]),
    make_topic(["web"], [
        ("Search in the {feature} returns no results even for items I know exist.", ["Search returns no results", "Search not finding items"]),
        ("Search results are missing anything created in the last few days.", ["Search missing recent items", "New items not searchable"]),
    ], [
        "It seems to affect only projects created after {month}.",
        "The items show up if I browse to them manually.",
    ], ["Does the search index need to be rebuilt?"]),
    make_topic(["web"], [
        ("The filters in the {feature} reset every time the page reloads.", ["Filters keep resetting", "Saved filters not saved"]),
        ("Saved views lose their sort order after I close the browser.", ["Saved views lose sort order", "Views not keeping settings"]),
    ], [
        "It happens with every saved view.",
        "My colleagues see the same thing.",
    ], ["Can you look into this?"]),
    make_topic(["web"], [
        ("Custom fields we created are missing from the {feature}.", ["Custom fields missing", "Custom fields disappeared"]),
    ], [
        "The fields are still listed under workspace settings.",
        "The data we entered in them is gone from the {feature} too.",
    ], ["Is the data still there?"]),
    make_topic(["web"], [
        ("Your status page says all systems are operational but the {feature} is down for us.", ["{feature} down for us", "Outage not on status page"]),
        ("Real-time updates stopped working and the app keeps showing a Reconnecting banner.", ["Real-time updates not working", "Stuck on Reconnecting banner"]),
    ], [
        "Our monitoring picked up the first failures at {time} today.",
        "The page source shows a script failing to load from your CDN.",
        "Our IT team confirmed there is no firewall or proxy blocking your domain.",
    ], ["Is there an incident you haven't posted yet?"]),
    make_topic(["web"], [
        ("The embedded widget on our website fails to load and the console shows a CORS error.", ["Embedded widget fails to load", "CORS error with embedded widget"]),
    ], [
        "The widget worked on our site until {date}.",
        "Our allowed domains list includes our website.",
        "The console error mentions the Access-Control-Allow-Origin header.",
    ], ["Did something change in the embed settings?"]),
]

ACCOUNT_TOPICS = [
    make_topic(["personal", "problem"], [
        ("I can't log in to my account even though I'm sure the password is correct.", ["Can't log in", "Unable to sign in to my account"]),
        ("I can sign in on the mobile app but the website keeps saying my password is wrong.", ["Login not working on website", "Password rejected on website"]),
        ("Locked out of my account again, the reset link says invalid token.", ["Locked out of my account", "locked out again"]),
    ], [
        "The login page says 'Invalid email or password' even right after a reset.",
        "I tried the Forgot password link on the login page.",
        "I have used the same password manager entry for years.",
        "My colleagues can log in without problems.",
    ], ["Can you help me get back into my account?", "Can you unlock the account?"]),
    make_topic(["personal", "problem"], [
        ("I forgot which email I used to register and now I can't sign in.", ["Forgot my login email", "Which email is my account under?"]),
    ], [
        "It's probably one of my old work addresses.",
        "I can tell you the workspace name, {workspace}.",
    ], ["Can you look up which address my account uses?"]),
    make_topic(["personal", "problem"], [
        ("The password reset email never arrives in my inbox.", ["Password reset email not arriving", "No reset link received"]),
        ("I've requested a password reset {n_times} times and received nothing.", ["Reset emails not arriving", "Can't reset my password"]),
    ], [
        "I checked the spam and junk folders too.",
        "The email on the account is {email}.",
        "Our mail server might filter automated emails, but other services get through fine.",
    ], ["Can you send a new reset link to {email}?"]),
    make_topic(["personal", "problem"], [
        ("Every password reset link I get says it has expired as soon as I click it.", ["Reset link expired", "Password reset link not working"]),
    ], [
        "I clicked it within a minute of receiving it.",
        "I tried opening it in a different browser too.",
    ], ["Can you reset the password for me?"]),
    make_topic(["personal", "problem"], [
        ("I lost my phone and can no longer get the two-factor codes to sign in.", ["Lost phone, can't get 2FA codes", "Locked out by two-factor"]),
        ("My phone was stolen and the authenticator app for my login was on it.", ["Phone stolen, need 2FA reset", "Authenticator app lost"]),
    ], [
        "I don't have the backup codes anymore.",
        "The account is also tied to a phone number I no longer have.",
        "I can still access my email address.",
    ], ["Please reset the two-factor authentication so I can set it up again.",
        "What do I need to provide to verify my identity?"]),
    make_topic(["team"], [
        ("I need to reset two-factor authentication for {colleague}, who got a new phone.", ["Reset two-factor authentication for a user", "2FA reset for colleague"]),
    ], [
        "{colleague} just needs to set up two-factor authentication again.",
        "I'm the workspace admin, and I can't find a reset option for other users.",
    ], ["Can you reset it or tell me where the option is?"]),
    make_topic(["personal", "problem"], [
        ("I can't enable two-factor authentication because the QR code won't scan.", ["2FA QR code won't scan", "Can't set up two-factor"]),
    ], [
        "I tried Google Authenticator and Authy.",
        "Typing the setup key manually doesn't work either.",
    ], ["Is there another way to turn on two-factor for my account?"]),
    make_topic(["personal", "problem"], [
        ("I keep receiving login verification codes that I never requested.", ["Receiving codes I didn't request", "Unrequested verification codes"]),
    ], [
        "I haven't tried to log in since {date}.",
        "I've already changed my password.",
    ], ["Is someone trying to get into my account?"]),
    make_topic(["personal", "request"], [
        ("Please change the email address on my account to {email}.", ["Change email address on account", "Update my login email"]),
        ("I need to update my login email because our company moved to the domain {domain}.", ["Login email domain change", "Change email to new domain"]),
    ], [
        "I no longer have access to the old mailbox.",
        "I'd prefer to keep my history but under the new email address.",
    ], ["Please confirm once the email address has been updated."]),
    make_topic(["personal", "request"], [
        ("My account shows the wrong name and I can't edit it.", ["Update my name", "Wrong name on my account"]),
        ("I'd like to change the username on my profile but the field is greyed out.", ["Username can't be changed", "Change my username"]),
    ], [
        "I changed my last name after getting married.",
        "I don't see any option to edit it under Profile settings.",
    ], ["Could you make the change for me?"]),
    make_topic(["personal", "request"], [
        ("I want to change the phone number linked to my account for verification.", ["Change phone number for verification", "Update verification phone number"]),
    ], [
        "My old number will stop working at the end of the month.",
        "I still have access to my account right now.",
    ], ["How can I do this without losing access?"]),
    make_topic(["team", "request"], [
        ("I need to transfer ownership of our workspace to {colleague} because I'm leaving the company.", ["Transfer workspace ownership", "Change account owner"]),
    ], [
        "My manager asked me to hand over the account before my last day on {date}.",
        "{colleague} already has a member account in the workspace.",
    ], ["Could you transfer ownership to {colleague}?"]),
    make_topic(["team", "problem"], [
        ("Our account owner left and nobody else has access to the admin settings.", ["Account owner left the company", "No admin left on our account"]),
        ("Can you help me regain admin access to the {company} workspace?", ["Need admin access to our account", "Regain admin access"]),
    ], [
        "{colleague} was our account owner until they left in {month}.",
        "Their company email has been deactivated.",
        "We have {n_users} people in the workspace and no admin now.",
    ], ["What do you need from us to make me the new owner?"]),
    make_topic(["team", "request"], [
        ("A former employee still has admin access to our workspace and we need it removed.", ["Remove former employee's access", "Offboarding a user"]),
        ("Please remove {colleague} from our team, they left the company on {date}.", ["Remove user from our team", "Please offboard {colleague}"]),
    ], [
        "Our IT policy requires that departing employees lose access on their last day.",
        "We want to keep the project data but remove the person.",
        "I can't remove them myself because they are an owner.",
    ], ["Please remove their access as soon as possible."]),
    make_topic(["team", "problem"], [
        ("A user in our workspace changed their own role to admin without permission.", ["Revoke admin rights", "User made themselves admin"]),
    ], [
        "I'm the owner and didn't approve this.",
        "We need an audit of who had admin rights over the last {n_days} days.",
    ], ["Please revert the role change and tell us how it happened."]),
    make_topic(["team", "problem"], [
        ("My colleague {colleague} never received the invitation to join our team.", ["Invitation not received", "Teammate didn't get the invite"]),
        ("The invitation link says it has expired when my new teammate clicks it.", ["Invite link expired", "Can't add my teammate"]),
    ], [
        "The invite was sent to {email2}.",
        "We use Google Workspace for our company emails.",
        "I've resent the invitation twice.",
    ], ["Could you resend the invitation or add them manually?"]),
    make_topic(["personal", "problem"], [
        ("I'm trying to sign up but it says my email is already in use.", ["Email already in use", "Can't sign up with my email"]),
    ], [
        "I don't remember ever creating an account.",
        "I need to join my team's workspace with that address.",
    ], ["Can you check if there is an old account under this email?"]),
    make_topic(["team", "request"], [
        ("I need to give {colleague} admin rights but I don't see the option anywhere.", ["Can't give admin rights", "Make {colleague} an admin"]),
        ("how do i add a second admin to our team account", ["add second admin?", "How to add a second admin"]),
    ], [
        "I'm an admin on the workspace but the Members page doesn't let me change roles.",
        "The role dropdown only shows Viewer and Editor.",
    ], ["How do I do this myself next time?"]),
    make_topic(["team", "problem"], [
        ("My team members lost their permissions to edit projects after a role change.", ["Lost edit permissions", "Team can't edit projects anymore"]),
        ("My permissions were changed and I can no longer edit projects.", ["My permissions changed", "Can't edit projects anymore"]),
    ], [
        "Nobody told us the roles would change.",
        "We need edit rights back for {n_users} people.",
    ], ["Can you restore the previous roles?"]),
    make_topic(["personal", "problem"], [
        ("Someone logged into my account from {country} and I think it was hacked.", ["I think my account was hacked", "Suspicious login on my account"]),
        ("I don't recognize several devices listed under active sessions on my account.", ["Unknown sessions on my account", "Unrecognized devices logged in"]),
        ("I got a new sign-in alert from {country} that wasn't me.", ["Sign-in alert that wasn't me", "Suspicious sign-in from {country}"]),
    ], [
        "The alert email came in at {time}.",
        "I have already changed the password on my email account as a precaution.",
        "I already signed out of all other sessions.",
    ], ["Can you lock the account until I can secure it?"]),
    make_topic(["personal", "request"], [
        ("How do I delete my account and all my personal data?", ["Delete my account", "Account deletion request"]),
        ("Please delete my account, I no longer use {product}.", ["Please delete my account", "Remove my account"]),
    ], [
        "I would like all my data removed, including backups.",
        "Please don't delete the shared projects, just my personal account.",
    ], ["Please delete the account and confirm in writing."]),
    make_topic(["team", "request"], [
        ("Please close our company account at the end of this month.", ["Close our company account", "Closing our workspace"]),
    ], [
        "We'd like an export of our projects before it's closed.",
        "Everyone on the team has been told.",
    ], ["Please confirm the closing date."]),
    make_topic(["personal", "request"], [
        ("I'd like to export all the personal data you hold about me under GDPR.", ["GDPR data request", "Request for personal data export"]),
    ], [
        "I'm making this request under Article 15 of the GDPR.",
        "Please send the data to {email}.",
    ], ["How long will this take?"]),
    make_topic(["personal", "request"], [
        ("I accidentally created two accounts and would like to merge them.", ["Merge two accounts", "I have duplicate accounts"]),
    ], [
        "Both accounts use the same name but different email addresses.",
        "The newer account has most of my recent projects.",
        "The other account was created by mistake when I clicked an invite link.",
    ], ["Please merge the two accounts into the one with {email}."]),
    make_topic(["personal", "request"], [
        ("Could you reactivate the account that I deactivated last month?", ["Reactivate my account", "Undo account deactivation"]),
    ], [
        "I deactivated it by mistake when I meant to leave a workspace.",
        "I'd like to keep my old username and projects.",
    ], ["Can you turn it back on?"]),
    make_topic(["personal", "problem"], [
        ("I need to recover an account I created years ago with an email I no longer have.", ["Recover old account", "Access to an old account"]),
        ("My account was suspended and I don't know why.", ["My account was suspended", "Why was my account suspended?"]),
    ], [
        "I didn't get any warning email.",
        "I can tell you the workspace name and roughly when I signed up.",
    ], ["What do I need to provide to get access back?"]),
    make_topic(["personal", "request"], [
        ("I signed up with Google and now I want to log in with a password instead.", ["Switch from Google login to password", "Change login method"]),
        ("Please unlink my old Google account from my login.", ["Unlink Google account", "Remove Google sign-in"]),
    ], [
        "I want to keep all my projects.",
        "I no longer use that Google account.",
    ], ["Could you switch my login method for me?"]),
    make_topic(["personal", "problem"], [
        ("After SSO was enabled for our domain I can no longer sign in to my account.", ["Locked out after SSO change", "Can't sign in since SSO"]),
    ], [
        "SSO via our identity provider works for everyone except me.",
        "Our domain is {domain} and all our users have addresses there.",
    ], ["Can you check how my account is linked?"]),
    make_topic(["team", "request"], [
        ("I'd like to rename our workspace and change its URL.", ["Rename our workspace", "Change workspace URL"]),
    ], [
        "The current workspace URL still has our old company name in it.",
        "Will the old links still work after the rename?",
    ], ["Can you do this for us or tell me where the setting is?"]),
    make_topic(["team", "request"], [
        ("We need to move {n_users} users from one workspace to another.", ["Move users between workspaces", "Transfer users to another workspace"]),
    ], [
        "Both workspaces belong to the same company.",
        "They should keep their current roles.",
    ], ["What's the easiest way to do this?"]),
]

TOPICS = {"billing": BILLING_TOPICS, "technical": TECHNICAL_TOPICS, "account": ACCOUNT_TOPICS}

# Generic sentences, keyed by category and by the topic tag they need ("any"
# fits every topic of the category).
GENERIC_DETAILS = {
    "billing": {
        "any": [
            "I contacted billing on {date} but haven't heard back.",
            "Our subscription is under {company}, billing contact {email}.",
            "Our accounting period closes on {weekday}, so I need this sorted quickly.",
            "We are on the {plan} plan with {n_users} users.",
            "Our finance team is asking me about this every day.",
            "We've been customers since {year}.",
        ],
        "charge": [
            "I have attached a screenshot of the bank statement.",
            "All our other invoices from you have been correct.",
            "I'm on a fixed budget, so this matters.",
            "The charge appears on the company {card}.",
            "We never had billing issues before this.",
            "The next payment date shown on the billing page is {date}.",
        ],
        "request": [
            "I couldn't find this in the help center.",
            "Our previous provider handled this without any trouble.",
        ],
    },
    "technical": {
        "any": [
            "It started right after the update on {date}.",
            "It happens for every user in our workspace, not just me.",
            "It was working fine until recently.",
            "Nothing changed on our side as far as I know.",
            "I checked your status page and it shows no incidents.",
            "We rely on this every day, so the whole team is blocked.",
            "I can reproduce it consistently.",
        ],
        "web": [
            "I tried it in {browser} and {browser2} and the result is the same.",
            "I'm on {os} using {browser}.",
            "My colleague on {os2} sees exactly the same.",
            "I attached a screen recording showing the problem.",
        ],
        "mobile": [
            "I'm on the latest version of the app from the store.",
            "My phone runs the latest OS update.",
            "I attached a screen recording showing the problem.",
        ],
        "desktop": [
            "I'm on {os} with desktop app version {version}.",
            "The web version in {browser} works fine.",
        ],
        "api": [
            "We call the API from a small Python service.",
            "Our API client hasn't changed in months.",
        ],
        "integration": [
            "The integration was set up by {colleague} a year ago and worked fine until now.",
            "Nobody changed the integration settings recently.",
        ],
        "email": [
            "It affects every address on our team, not just mine.",
            "Our company email runs on Microsoft 365.",
        ],
    },
    "account": {
        "any": [
            "I've read the help center article on this but it didn't cover my case.",
            "I have been a user since {year}.",
        ],
        "personal": [
            "I'm the only person who has ever used this account.",
            "I'm happy to provide ID to prove it's my account.",
            "The account is registered under {email}.",
            "I'm travelling and only have my laptop with me right now.",
        ],
        "team": [
            "Our workspace is called {workspace}.",
            "I'm the admin for our team.",
            "There are {n_users} people in our workspace.",
            "{colleague} asked me to get this sorted by {weekday}.",
        ],
        "problem": [
            "I'm writing from my personal email because of this.",
            "This is affecting my ability to do my job.",
            "I never had this problem before.",
        ],
    },
}

GENERIC_ASKS = {
    "billing": [
        "Let me know what you need from me to sort this out.",
        "Could someone from billing call me back at {phone}?",
        "Please confirm once this is done.",
    ],
    "technical": [
        "Can you look into this?", "Is this a known bug?", "Is there a workaround until it's fixed?",
        "Please let me know if you need logs or more details.", "Can you escalate this to your engineering team?",
        "When can we expect a fix?", "What else can I try?", "Please fix this asap.", "Do you have an ETA?",
    ],
    "account": [
        "Please let me know what the next steps are.", "Please confirm by email once it's done.",
        "Can you help?", "What do you need from me?",
    ],
}

TROUBLESHOOTING_STEPS = {
    "web": [
        "I already cleared the cache and cookies.", "Disabling all browser extensions did not help.",
        "I tried in a private window as well.", "I updated {browser} to the latest version.",
        "I've tried a different network as well.", "Logging out and back in didn't change anything.",
        "A colleague tried on their machine and got the same result.",
    ],
    "mobile": [
        "I reinstalled the app.", "I restarted the phone, no change.", "Logging out and back in didn't help.",
        "I tried on Wi-Fi and on mobile data.", "I cleared the app's storage in the phone settings.",
    ],
    "desktop": [
        "I reinstalled the app twice.", "I restarted my computer, no change.", "I checked that {os} is fully up to date.",
        "I deleted the local cache folder as described in your help center.",
    ],
    "api": [
        "I generated a new API key, same result.", "We tried from a different server with the same outcome.",
        "Retrying with exponential backoff doesn't help.",
    ],
    "integration": [
        "We disconnected and reconnected {integration} already.", "I re-authorized the integration with an admin user.",
        "We tried a manual sync from the settings page.",
    ],
    "email": [
        "Our IT team checked the mail server and nothing is being blocked.",
        "We added your sending domain to our allow list, no change.",
    ],
}

# Sentences that use another category's vocabulary without changing the
# ticket's intent (a realistic minority of tickets carries one).
CROSS_MENTIONS = {
    "billing": [
        "I can log in to my account without problems, it's only the billing that's wrong.",
        "I'm the account owner, so billing emails should come to me.",
        "The billing page loads slowly and sometimes shows an error, so I couldn't check it there.",
        "I tried to sort this out myself but the billing form kept timing out.",
        "My colleague has admin access too, but I handle the payments.",
    ],
    "technical": [
        "It happens on my account and also on {colleague}'s account.",
        "I'm logged in as the account admin, so it isn't a permissions thing.",
        "We're paying for the {plan} plan, so I'd expect this to work reliably.",
        "My account settings haven't changed, so I don't think it's that.",
        "We just renewed our subscription, so please treat this as a priority.",
        "Our account is on the {plan} plan, in case some features depend on that.",
    ],
    "account": [
        "I still want to keep the subscription we pay for, this is only about access.",
        "Our invoices go to {email2}, but that's not the login I'm asking about.",
        "I'm not asking about billing, we pay by invoice and that's fine.",
        "This isn't a bug report, I just need the account sorted out.",
        "Please make sure this doesn't affect our subscription or billing.",
    ],
}

CONTEXT_SENTENCES = [
    "We're a team of {n_users} using {product} for client projects.",
    "I've been a customer since {year}.",
    "I manage {product} for our {dept} department.",
    "We're a small agency and depend on {product} every day.",
    "I'm writing on behalf of {company}.",
    "This is for our {dept} team at {company}.",
    "We rolled out {product} to the whole company in {month}.",
    "I've been using {product} for my freelance work for a couple of years.",
    "Our company is based in {city}.",
    "I'm contacting you for {colleague}, who manages our {dept} team.",
    "We moved to {product} from another tool earlier this year.",
]
URGENCY_SENTENCES = [
    "This is quite urgent for us.", "We have a deadline on {weekday}, so a quick answer would be appreciated.",
    "Please treat this as high priority.", "I'd like to get this sorted this week.",
    "I need this resolved before the end of the month.", "This is the {nth} time I'm writing about this.",
    "A reply today would really help.",
]
ANGRY_SENTENCES = [
    "This is honestly ridiculous.", "I'm really frustrated with how this has been handled.",
    "I've been waiting for days without a proper answer.", "If this isn't sorted soon we'll look at other tools.",
    "Frankly, I expected better from a paid product.", "This is not the first time this has happened.",
    "Nobody has replied to my previous two emails.", "I'm starting to lose patience here.",
    "Seriously, how hard can this be?", "We are seriously considering cancelling over this.",
    "Your chatbot was useless.", "I want a real person to look at this, not a canned reply.",
]
POLITE_SENTENCES = [
    "Thanks in advance for your help.", "I appreciate any help you can give.",
    "Sorry if this has been asked before.", "I hope this is the right place to ask.",
    "Thank you for looking into it.", "Let me know if you need anything else from me.",
    "Thanks for the great product otherwise.",
]
SHORT_CLOSERS = ["Thanks.", "Please help.", "Thanks!", "Any ideas?", "Please advise.", "thx", "Help please.",
                 "Cheers.", "Thanks in advance.", "Please check."]
GREETINGS = ["Hi,", "Hello,", "Hi team,", "Hello support,", "Good morning,", "Hey,", "Hi there,",
             "Dear support team,", "Hi {agent},", "Good afternoon,", "Hello again,"]
SIGN_OFFS = [
    "Thanks,\n{first}", "Best regards,\n{first} {last}\n{company}", "Cheers,\n{first}", "{first}",
    "Kind regards,\n{first} {last}", "Sent from my iPhone", "Thank you,\n{first} {last}\n{dept_title}, {company}",
    "Regards,\n{first}", "Many thanks,\n{first} {last}", "- {first}", "Best,\n{first}\n{phone}",
]
DEPT_TITLES = ["Office Manager", "Head of Operations", "Finance Lead", "IT Administrator", "Project Manager",
               "Founder", "Marketing Coordinator", "CTO", "Team Lead", "Accountant"]

TONES = [("polite", 0.33), ("neutral", 0.37), ("angry", 0.15), ("terse", 0.15)]


# ---------------------------------------------------------------------------
# Slot filling
# ---------------------------------------------------------------------------
def random_digits(rng: random.Random, k: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(k))


def random_alnum(rng: random.Random, k: int, alphabet: str = "abcdefghijklmnopqrstuvwxyz0123456789") -> str:
    return "".join(rng.choice(alphabet) for _ in range(k))


def weighted_choice(rng: random.Random, pairs):
    total = sum(w for _, w in pairs)
    r = rng.random() * total
    for item, w in pairs:
        r -= w
        if r < 0:
            return item
    return pairs[-1][0]


def slugify(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "", ascii_text.lower())


DATE_STYLES = 6


def format_date(style: int, day: dt.date) -> str:
    """Write a date the way one of several kinds of customers would."""
    if style == 0:
        return f"{MONTHS[day.month - 1]} {day.day}"
    if style == 1:
        return f"{day.day} {MONTHS[day.month - 1]}"
    if style == 2:
        return day.strftime("%m/%d/%Y")
    if style == 3:
        return day.isoformat()
    if style == 4:
        return day.strftime("%d.%m.%Y")
    return f"{MONTHS[day.month - 1][:3]} {day.day}"


class TicketSlots:
    """Lazily drawn slot values for one ticket, so repeated slots agree."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.values: dict[str, str] = {}
        self.currency = weighted_choice(rng, [(code, spec[1]) for code, spec in CURRENCIES.items()])
        self.money_format = rng.choice(CURRENCIES[self.currency][2])  # one style per writer
        self.date_style = rng.randrange(DATE_STYLES)
        self.first = rng.choice(FIRST_NAMES)
        self.last = rng.choice(LAST_NAMES)
        self.company = rng.choice(COMPANIES)
        self.domain = slugify(self.company) + rng.choice([".com", ".io", ".de", ".co.uk", ".net", ".org"])

    def get(self, name: str) -> str:
        if name not in self.values:
            self.values[name] = self.draw(name)
        return self.values[name]

    def fill(self, template: str) -> str:
        text = template
        for _ in range(3):  # slot values may contain slots themselves
            text = re.sub(r"\{(\w+)\}", lambda m: self.get(m.group(1)), text)
        return text

    def amount(self) -> str:
        value = self.rng.choice(PRICE_POINTS) + self.rng.choice([0.0, 0.0, 0.99, 0.5, 0.0])
        return self.money_format(value)

    def person_email(self, first: str, last: str) -> str:
        first, last = slugify(first), slugify(last)
        local = self.rng.choice([f"{first}.{last}", f"{first[0]}{last}", first, f"{first}{self.rng.randrange(1, 99)}"])
        return f"{local}@{self.domain}"

    def draw(self, name: str) -> str:  # noqa: C901 - a flat table of slot kinds
        rng = self.rng
        if name == "amount":
            return self.amount()
        if name == "amount2":  # a second, different amount
            while True:
                value = self.amount()
                if value != self.get("amount"):
                    return value
        if name == "currency_name":
            return CURRENCIES[self.currency][0]
        if name == "currency_name2":
            return rng.choice([spec[0] for code, spec in CURRENCIES.items() if code != self.currency])
        if name == "plan":
            return rng.choice(PLANS)
        if name == "plan2":  # a cheaper plan than {plan}, for downgrades
            return rng.choice(["Free"] + PLANS[:PLANS.index(self.get("plan"))])
        if name == "invoice":
            return rng.choice([f"INV-{rng.randrange(2023, 2026)}-{random_digits(rng, 4)}", f"#{random_digits(rng, 5)}",
                               f"INV{random_digits(rng, 6)}", f"WL-{random_digits(rng, 5)}"])
        if name == "order":
            return rng.choice([f"ORD-{random_digits(rng, 5)}", f"#{random_digits(rng, 6)}", f"A{random_digits(rng, 7)}"])
        if name == "ref":
            return rng.choice([f"RF{random_alnum(rng, 8, 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789')}",
                               f"ch_{random_alnum(rng, 14)}", f"REF-{random_digits(rng, 6)}"])
        if name in ("date", "date2"):
            day = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(540))
            return format_date(self.date_style, day)
        if name == "month":
            return rng.choice(MONTHS)
        if name == "year":
            return str(rng.randrange(2017, 2025))
        if name == "period":
            return rng.choice(["month", "year", "quarter"])
        if name == "time":
            hour, minute = rng.randrange(6, 23), rng.randrange(60)
            return rng.choice([f"{hour:02d}:{minute:02d}", f"{(hour - 1) % 12 + 1}:{minute:02d} {'am' if hour < 12 else 'pm'}",
                               f"{hour:02d}:{minute:02d} CET", f"around {(hour - 1) % 12 + 1}{'am' if hour < 12 else 'pm'}"])
        if name == "last4":
            return random_digits(rng, 4)
        if name == "card":
            return rng.choice(CARDS)
        if name == "n_users":
            return str(rng.randrange(3, 41))
        if name == "n_seats":
            return str(int(self.get("n_users")) + rng.randrange(2, 16))
        if name == "n_extra":
            return str(rng.randrange(2, 11))
        if name == "pct":
            return str(rng.choice([5, 10, 15, 19, 20, 21, 25, 30, 50]))
        if name == "vat":
            return rng.choice([f"DE{random_digits(rng, 9)}", f"GB{random_digits(rng, 9)}", f"FR{random_digits(rng, 11)}",
                               f"NL{random_digits(rng, 9)}B01", f"IE{random_digits(rng, 7)}X"])
        if name == "po":
            return rng.choice([f"PO-{random_digits(rng, 5)}", f"4500{random_digits(rng, 6)}"])
        if name == "promo":
            return rng.choice(PROMO_CODES)
        if name == "descriptor":
            return rng.choice(DESCRIPTORS)
        if name == "phone":
            return rng.choice([f"+1 415 555 {random_digits(rng, 4)}", f"+44 20 7946 {random_digits(rng, 4)}",
                               f"+49 30 {random_digits(rng, 7)}", f"+61 2 5550 {random_digits(rng, 4)}"])
        if name == "email":
            return self.person_email(self.first, self.last)
        if name == "email2":
            return self.person_email(rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES))
        if name == "company":
            return self.company
        if name == "domain":
            return self.domain
        if name == "colleague":
            return rng.choice([rng.choice(FIRST_NAMES), f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"])
        if name == "first":
            return self.first
        if name == "last":
            return self.last
        if name == "agent":
            return rng.choice(SUPPORT_AGENTS)
        if name == "country":
            return rng.choice(COUNTRIES)
        if name == "city":
            return rng.choice(CITIES)
        if name == "street":
            return f"{rng.randrange(1, 240)} {rng.choice(['Harbour Road', 'Main Street', 'Kastanienallee', 'Rue des Lilas', 'Elm Avenue', 'Station Square'])}"
        if name == "dept":
            return rng.choice(DEPARTMENTS)
        if name == "dept_title":
            return rng.choice(DEPT_TITLES)
        if name == "weekday":
            return rng.choice(WEEKDAYS)
        if name == "workspace":
            return rng.choice(WORKSPACES)
        if name == "product":
            return rng.choice([PRODUCT, PRODUCT, "your app", "your platform", "the tool"])
        if name == "nth":
            return rng.choice(NTH)
        if name == "n_times":
            return rng.choice(NUMBER_WORDS)
        if name == "feature":
            return rng.choice(FEATURES)
        if name == "file_type":
            return rng.choice(FILE_TYPES)
        if name == "integration":
            return rng.choice(INTEGRATIONS)
        if name == "calendar":
            return rng.choice(CALENDARS)
        if name == "device":
            return rng.choice(DEVICES)
        if name == "os":
            return rng.choice(OSES)
        if name == "os2":
            return rng.choice([o for o in OSES if o != self.get("os")])
        if name == "browser":
            return rng.choice(BROWSERS)
        if name == "browser2":
            first_word = self.get("browser").split()[0]
            return rng.choice([b for b in BROWSERS if b.split()[0] != first_word])
        if name == "error":
            return rng.choice(ERROR_CODES)
        if name == "error_msg":
            return rng.choice(ERROR_MESSAGES)
        if name == "http":
            return rng.choice(HTTP_ERRORS)
        if name == "endpoint":
            return rng.choice(ENDPOINTS)
        if name == "version":
            return f"{rng.randrange(3, 6)}.{rng.randrange(0, 16)}.{rng.randrange(0, 10)}"
        if name == "timeframe":
            return rng.choice(TIMEFRAMES)
        if name == "tz":
            return rng.choice(TIMEZONES)
        if name == "req_id":
            return rng.choice([f"req_{random_alnum(rng, 16)}", f"{random_alnum(rng, 8, '0123456789abcdef')}-"
                               f"{random_alnum(rng, 4, '0123456789abcdef')}-{random_alnum(rng, 4, '0123456789abcdef')}"])
        if name == "row":
            return str(rng.randrange(2, 2400))
        if name in ("n_seconds",):
            return str(rng.choice([15, 20, 30, 45, 60, 90]))
        if name == "n_mb":
            return str(rng.choice([10, 25, 50, 100, 200]))
        if name == "n_small":
            return str(rng.choice([2, 5, 8]))
        if name == "n_items":
            return rng.choice(["50", "200", "500", "1,000", "5,000", "10,000"])
        if name == "n_gb":
            return str(rng.randrange(2, 7))
        if name == "n_minutes":
            return str(rng.randrange(10, 46))
        if name == "n_days":
            return str(rng.randrange(3, 31))
        raise KeyError(f"unknown slot {name!r}")


# ---------------------------------------------------------------------------
# Length estimate and distribution
# ---------------------------------------------------------------------------
_TOKEN_PIECES = re.compile(r"[A-Za-z]+|\d|\n| {2,}|([^\w\s])\1*|\S")


def estimate_tokens(text: str) -> int:
    """Rough BPE token count: words, single digits, newlines and punctuation runs."""
    count = 0
    for match in _TOKEN_PIECES.finditer(text):
        piece = match.group(0)
        if piece.isalpha() and piece.isascii():
            count += 1 + len(piece) // 10
        elif not piece.isascii():
            count += 2
        else:
            count += 1
    return count


def draw_target_length(rng: random.Random, tone: str) -> int:
    """Target text length in estimated tokens.

    Most tickets: a floor plus a lognormal (long right tail), cut at
    VERY_LONG_FROM; a small share is spread evenly above that, up to
    MAX_TARGET_TOKENS (pasted logs, threads and histories).
    """
    if rng.random() < VERY_LONG_SHARE:
        target = rng.uniform(VERY_LONG_FROM, MAX_TARGET_TOKENS)
    else:
        while True:
            target = MIN_TARGET_TOKENS + rng.lognormvariate(math.log(LENGTH_MEDIAN_EXCESS), LENGTH_SIGMA)
            if target <= VERY_LONG_FROM:
                break
    if tone == "terse":
        target = MIN_TARGET_TOKENS + (target - MIN_TARGET_TOKENS) * SHORT_TONE_FACTOR
    return int(round(target))


# ---------------------------------------------------------------------------
# Long pasted material (logs, traces, charge lists, timelines, threads).
# Every builder stops before it would run past its token budget.
# ---------------------------------------------------------------------------
def timestamp_series(rng: random.Random):
    moment = dt.datetime(2024, 1, 1) + dt.timedelta(minutes=rng.randrange(540 * 24 * 60))
    while True:
        moment += dt.timedelta(milliseconds=rng.randrange(40, 90000))
        yield moment


def fill_lines(header: list[str], make_line, budget: int, at_least: int = 1, weight: float = 1.0) -> list[str]:
    """Append make_line() results to header while they fit into the token budget.

    `weight` corrects the estimate for lines the tokenizer splits finely
    (e-mail addresses, upper-case descriptors).
    """
    lines = list(header)
    used = estimate_tokens("\n".join(lines))
    added = 0
    while True:
        line = make_line()
        if line is None:  # the builder ran out of material
            return lines
        cost = weight * estimate_tokens(line) + 1
        if used + cost > budget and added >= at_least:
            return lines
        lines.append(line)
        used += cost
        added += 1


LOG_TEMPLATES = {
    "web": [
        "ERROR [api] POST {ep} -> {code} ({ms} ms) request_id={req}",
        "WARN  [http] retrying request to api.workloom.io{ep} (attempt {k}/5)",
        "DEBUG [ws] connection closed code=1006 reason=''",
        "WARN  [client] slow frame detected: {ms}ms in Renderer.commit",
        "ERROR [export] failed to render report: heap limit reached",
        "WARN  [cache] index out of date, rebuilding ({k} segments)",
        "ERROR [upload] chunk {k} rejected: 413 Payload Too Large",
    ],
    "api": [
        "ERROR [api] GET {ep} -> {code} ({ms} ms) request_id={req}",
        "ERROR [api] POST {ep} -> {code} ({ms} ms) request_id={req}",
        "WARN  [client] read timeout after {ms}ms, retrying ({k}/5)",
        "ERROR [webhook] delivery failed: ECONNREFUSED 10.0.{a}.{b}:443",
        "INFO  [client] GET {ep} -> 200 ({ms} ms)",
    ],
    "integration": [
        "ERROR [sync-worker-{w}] SyncJob {job} failed: upstream timeout after {ms}ms (workspace={ws})",
        "INFO  [sync] fetched 0 records from {integration}",
        "INFO  [scheduler] starting job sync_{integration_key} id={job}",
        "WARN  [sync] {integration} returned 401, refreshing token",
        "ERROR [sync] mapping failed for field 'due_date': unexpected null",
        "INFO  [sync] run {job} completed: 0 created, 0 updated, {k} skipped",
    ],
    "desktop": [
        "ERROR [main] renderer process gone: reason=crashed exitCode={k}",
        "WARN  [main] GPU process exited unexpectedly: exit_code=139",
        "INFO  [updater] current version {version}, checking for updates",
        "ERROR [renderer] Uncaught Error: ENOENT: no such file or directory, open 'settings.json'",
        "WARN  [perf] main thread blocked for {ms}ms",
        "INFO  [main] loading workspace {ws}",
    ],
}


def paste_log_lines(rng: random.Random, slots: TicketSlots, surface: str, budget: int) -> str:
    intro = rng.choice(["Here is what the log shows:", "Log excerpt below:", "Pasting the relevant part of the log:",
                        "From the app log (the last few minutes):", "Our logs around the time it failed:"])
    iso = rng.random() < 0.5
    stamps = timestamp_series(rng)
    templates = LOG_TEMPLATES[surface]

    def make_line():
        stamp = next(stamps)
        ts = stamp.isoformat(timespec="milliseconds") + "Z" if iso else stamp.strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
        return ts + " " + rng.choice(templates).format(
            w=rng.randrange(1, 9), job=random_alnum(rng, 6, "0123456789abcdef"), ms=rng.randrange(120, 60001),
            ws=slots.get("workspace"), ep=rng.choice(ENDPOINTS), k=rng.randrange(1, 6),
            code=rng.choice(["500", "502", "503", "504"]), req=random_alnum(rng, 12), a=rng.randrange(256),
            b=rng.randrange(256), integration=slots.get("integration"),
            integration_key=slugify(slots.get("integration")), version=slots.get("version"))

    return "\n".join(fill_lines([intro], make_line, budget))


def paste_browser_trace(rng: random.Random, slots: TicketSlots, budget: int) -> str:
    head = rng.choice([
        "Uncaught (in promise) TypeError: Cannot read properties of undefined (reading 'map')",
        "TypeError: Cannot read properties of null (reading 'getBoundingClientRect')",
        "RangeError: Maximum call stack size exceeded",
        "ChunkLoadError: Loading chunk 482 failed.",
    ])
    bundle = random_alnum(rng, 8, "0123456789abcdef")
    frames = ["ReportTable.render", "BoardColumn.componentDidUpdate", "useSyncStore", "commitHookEffectListMount",
              "flushPassiveEffects", "Array.map", "TimelineCanvas.draw", "async loadProject", "Object.onResize",
              "ExportDialog.submit", "CommentList.renderItems", "scheduler.workLoop"]

    def make_frame():
        return f"    at {rng.choice(frames)} (https://app.workloom.io/static/js/main.{bundle}.js:2:{rng.randrange(1000, 400000)})"

    return "\n".join(fill_lines([rng.choice(["Browser console:", "The console shows this:"]), head], make_frame, budget))


def paste_python_traceback(rng: random.Random, slots: TicketSlots, budget: int) -> str:
    frames = [("sync_client.py", "run", "resp = session.post(url, json=payload, timeout=30)"),
              ("workloom_client/api.py", "request", "response.raise_for_status()"),
              ("export_job.py", "main", "rows = client.export_report(report_id)"),
              ("site-packages/requests/adapters.py", "send", "raise ReadTimeout(e, request=request)"),
              ("site-packages/urllib3/connectionpool.py", "urlopen", "retries = retries.increment("),
              ("webhook_listener.py", "handle", "event = verify_signature(body, header)")]
    tail = rng.choice([
        f"requests.exceptions.HTTPError: 502 Server Error: Bad Gateway for url: https://api.workloom.io{slots.get('endpoint')}",
        "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.workloom.io', port=443): Read timed out. (read timeout=30)",
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    ])

    def make_frame():
        path, func, code = rng.choice(frames)
        return f'  File "/opt/app/{path}", line {rng.randrange(12, 900)}, in {func}\n    {code}'

    header = ["Our client fails with this traceback:", "Traceback (most recent call last):"]
    lines = fill_lines(header, make_frame, budget - estimate_tokens(tail) - 1)
    return "\n".join(lines + [tail])


def paste_http_exchange(rng: random.Random, slots: TicketSlots, budget: int) -> str:
    code, reason = rng.choice([("502", "Bad Gateway"), ("503", "Service Unavailable"), ("504", "Gateway Timeout"),
                               ("500", "Internal Server Error")])
    endpoint = slots.get("endpoint")
    stamp = next(timestamp_series(rng))
    lines = [
        "Request and response:", f"$ curl -i -H 'Authorization: Bearer ****' https://api.workloom.io{endpoint}",
        f"HTTP/2 {code}", f"date: {stamp.strftime('%a, %d %b %Y %H:%M:%S')} GMT", "content-type: application/json",
        f"x-request-id: {slots.get('req_id')}", "",
        f'{{"error": {{"code": "{reason.upper().replace(" ", "_")}", "message": "{reason}", "retry_after": {rng.randrange(5, 120)}}}}}',
    ]
    text = "\n".join(lines)
    if estimate_tokens(text) + 40 < budget:  # room left: add the server log as well
        text += "\n\n" + paste_log_lines(rng, slots, "api", budget - estimate_tokens(text) - 2)
    return text


def paste_mobile_crash_log(rng: random.Random, slots: TicketSlots, budget: int) -> str:
    if slots.get("device").startswith("iP"):
        header = ["Crash report from the phone:", "Exception Type:  EXC_CRASH (SIGABRT)",
                  "Termination Reason: Namespace SIGNAL, Code 6 Abort trap: 6",
                  "Thread 0 Crashed:: Dispatch queue: com.apple.main-thread"]
        symbols = ["WorkloomKit.SyncEngine.flush()", "WorkloomKit.AttachmentPicker.present()",
                   "UIKitCore -[UIViewController _presentViewController:]", "libswiftCore.dylib swift_unexpectedError",
                   "Workloom.ProjectViewController.viewDidLoad()", "CoreData -[NSManagedObjectContext save:]"]
        counter = iter(range(100))

        def make_line():
            return f"{next(counter)}   {rng.choice(symbols)} + {rng.randrange(40, 2400)}"
    else:
        stamps = timestamp_series(rng)
        pid = rng.randrange(2000, 30000)
        messages = ["E AndroidRuntime: FATAL EXCEPTION: main", "E AndroidRuntime: Process: io.workloom.app, PID: {pid}",
                    "E AndroidRuntime: java.lang.IllegalStateException: Fragment not attached to a context.",
                    "E AndroidRuntime: \tat io.workloom.app.project.ProjectFragment.onResume(ProjectFragment.kt:{n})",
                    "E AndroidRuntime: \tat androidx.fragment.app.Fragment.performResume(Fragment.java:{n})",
                    "W FirebaseMessaging: Unable to log event: analytics library is missing",
                    "I ActivityManager: Process io.workloom.app (pid {pid}) has died"]
        header = ["Logcat from the crash:"]

        def make_line():
            stamp = next(stamps)
            message = rng.choice(messages).format(pid=pid, n=rng.randrange(40, 3000))
            return f"{stamp.strftime('%m-%d %H:%M:%S.%f')[:-3]} {pid:5d} {pid:5d} {message}"
    return "\n".join(fill_lines(header, make_line, budget))


def paste_charge_history(rng: random.Random, slots: TicketSlots, budget: int) -> str:
    header = [rng.choice(["Here is what my bank statement shows:", "Charges from you on our company card:",
                          "For reference, these are all the payments we made:"])]
    day = [dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(200))]
    descriptor = slots.get("descriptor")

    def make_line():
        status = rng.choice(["paid", "paid", "paid", "refunded", "pending", "paid (duplicate?)"])
        amount = slots.get("amount") if rng.random() < 0.75 else slots.get("amount2")
        line = f"{day[0].isoformat()}  {descriptor}  {amount}  {status}"
        day[0] += dt.timedelta(days=rng.choice([1, 14, 30, 31, 30]))
        return line

    return "\n".join(fill_lines(header, make_line, budget, 2, weight=BLOCK_TOKEN_WEIGHTS["charges"]))


# Timeline entries: a first event, then follow-ups in a shuffled order.
TIMELINE_EVENTS = {
    "billing": {
        "first": ["I noticed the charge of {amount} on our statement.", "I was charged {amount} without any notice.",
                  "Our accountant flagged the invoice as incorrect."],
        "then": ["I contacted support by chat and was told it would be fixed.", "I received another invoice for {amount}.",
                 "I emailed billing again and got no reply.", "My bank asked me to contact you first before opening a dispute.",
                 "Someone named {agent} said the issue was escalated.", "I was promised a correction within 5 to 10 days.",
                 "I got an automated payment reminder for {invoice}.", "I called my bank again, nothing has come through."],
    },
    "account": {
        "first": ["I first noticed I couldn't get into my account.", "I requested a password reset and never got the email."],
        "then": ["I tried the reset again from another browser.", "Support asked me to verify my identity, and I sent the details.",
                 "I changed my email password as a precaution.", "I was locked out again after three attempts.",
                 "I sent a copy of my ID as requested.", "I got a verification code I didn't request.",
                 "I asked a colleague to check my account from their admin view.", "I wrote to support again, no answer yet."],
    },
    "technical": {
        "first": ["The first failures showed up in our monitoring.", "We first noticed the problem.",
                  "A colleague reported the problem first."],
        "then": ["We tested again on a second device with the same result.", "Support asked for more details, which I sent.",
                 "The issue went away for a few hours and came back.", "I was told a fix would be released this week.",
                 "After your release notes for {version} it got worse.", "We found a workaround, but it costs us an hour a day.",
                 "The problem spread to a second project.", "I checked again after your latest release, still broken."],
    },
}


def paste_timeline(rng: random.Random, slots: TicketSlots, category: str, budget: int) -> str:
    followups = list(TIMELINE_EVENTS[category]["then"])
    rng.shuffle(followups)
    events = followups + [rng.choice(TIMELINE_EVENTS[category]["first"])]  # popped from the end
    header = [rng.choice(["Timeline so far:", "To summarize what has happened:", "Here is the full history:"])]
    day = [dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(400))]

    def make_line():
        if not events:
            return None
        line = f"- {format_date(slots.date_style, day[0])}: {slots.fill(events.pop())}"
        day[0] += dt.timedelta(days=rng.randrange(1, 12))
        return line

    return "\n".join(fill_lines(header, make_line, budget))


def paste_user_list(rng: random.Random, slots: TicketSlots, budget: int) -> str:
    header = [rng.choice(["Current members of the workspace, for reference:", "Users and the roles they have now:",
                          "Here is the member list as it stands:"])]

    def make_line():
        return f"- {slots.person_email(rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES))} ({rng.choice(ROLES)})"

    return "\n".join(fill_lines(header, make_line, budget, 3, weight=BLOCK_TOKEN_WEIGHTS["users"]))


SUPPORT_REPLIES = {
    "billing": [
        "Thanks for reaching out to our billing team.", "I've forwarded your request to our finance department.",
        "Refunds usually take 5 to 10 business days to appear on your statement.",
        "Could you send us the last four digits of the card that was charged?",
        "I have escalated this to the billing specialists.", "We'll get back to you within two business days.",
    ],
    "technical": [
        "Thanks for the report, our engineers are looking into it.", "Could you send us logs or a screen recording?",
        "We weren't able to reproduce the issue on our side.", "Could you tell us which version you are using?",
        "We have opened an internal bug report for this.", "A fix is planned for one of the next releases.",
    ],
    "account": [
        "For security reasons we need to verify your identity before making changes.",
        "Please reply from the email address registered on the account.",
        "Only the workspace owner can request this change.", "Could you confirm the name of your workspace?",
        "We'll process the request within 48 hours.", "I've passed this on to our account team.",
    ],
}


def paste_forwarded_thread(rng: random.Random, slots: TicketSlots, category: str, subject: str,
                           earlier: list[str], budget: int) -> str:
    agent = slots.get("agent")
    stamp = next(timestamp_series(rng))
    replies = list(SUPPORT_REPLIES[category])
    rng.shuffle(replies)
    lines = [rng.choice(["See the thread below.", "Forwarding our previous conversation:", "Previous emails below for context."]),
             "", "---------- Forwarded message ---------",
             f"From: {agent} from {PRODUCT} Support <support@workloom.io>",
             f"Date: {stamp.strftime('%a, %d %b %Y at %H:%M')}", f"Subject: Re: {subject}",
             f"To: {slots.get('email')}", "", f"Hi {slots.first},", ""]
    closing = ["", f"Best,\n{agent}\n{PRODUCT} Customer Support", "",
               f"> On {format_date(slots.date_style, stamp.date() - dt.timedelta(days=rng.randrange(1, 6)))}, {slots.first} wrote:"]
    used = estimate_tokens("\n".join(lines + closing))
    for number, reply in enumerate(replies[:rng.randrange(2, 5)]):
        cost = estimate_tokens(reply) + 1
        if number and used + cost > budget * 0.6:
            break
        lines.append(reply)
        used += cost
    lines += closing
    for number, sentence in enumerate(earlier):
        cost = estimate_tokens(sentence) + 2
        if number and used + cost > budget:
            break
        lines.append("> " + sentence)
        used += cost
    return "\n".join(lines)


def surface_of(topic: dict) -> str:
    for tag in ("web", "mobile", "desktop", "api", "integration", "email"):
        if tag in topic["tags"]:
            return tag
    return "any"


def long_material_kinds(category: str, topic: dict) -> list[str]:
    """Kinds of pasted material that suit the topic, most typical first."""
    tags = topic["tags"]
    if category == "technical":
        return {"web": ["browser_trace", "log", "timeline"], "api": ["python_trace", "http", "log"],
                "integration": ["log", "timeline"], "desktop": ["log", "timeline"],
                "mobile": ["mobile_crash", "timeline"], "email": ["timeline"]}[surface_of(topic)]
    if category == "billing":
        return ["charges", "timeline"] if "charge" in tags else []
    return (["users"] if "team" in tags else []) + (["timeline"] if "personal" in tags and "problem" in tags else [])


def paste_one_block(rng: random.Random, slots: TicketSlots, category: str, topic: dict, kind: str, budget: int) -> str:
    if kind == "log":
        return paste_log_lines(rng, slots, surface_of(topic), budget)
    if kind == "browser_trace":
        return paste_browser_trace(rng, slots, budget)
    if kind == "python_trace":
        return paste_python_traceback(rng, slots, budget)
    if kind == "http":
        return paste_http_exchange(rng, slots, budget)
    if kind == "mobile_crash":
        return paste_mobile_crash_log(rng, slots, budget)
    if kind == "charges":
        return paste_charge_history(rng, slots, budget)
    if kind == "users":
        return paste_user_list(rng, slots, budget)
    return paste_timeline(rng, slots, category, budget)


BLOCK_TOKEN_WEIGHTS = {"users": 1.45, "charges": 1.3}  # same corrections as in their builders


def paste_long_material(rng: random.Random, slots: TicketSlots, category: str, topic: dict, subject: str,
                        earlier: list[str], budget: int) -> str:
    """Pasted material that suits the topic, about `budget` tokens long.

    One or two blocks (log, trace, charge list, timeline, member list), and for
    the longest tickets or topics without such material, a forwarded thread
    with the support team at the end.
    """
    kinds = long_material_kinds(category, topic)
    rng.shuffle(kinds)
    blocks: list[str] = []
    left = budget
    use_thread = not kinds or (budget >= THREAD_MIN_TOKENS + 45 and rng.random() < 0.35)
    for kind in kinds[:2]:
        if use_thread:  # leave room for the thread
            share = min(int(left * rng.uniform(0.45, 0.7)), left - THREAD_MIN_TOKENS)
        else:
            share = left
        if share < 45:
            break
        block = paste_one_block(rng, slots, category, topic, kind, share)
        blocks.append(block)
        left -= min(share, int(estimate_tokens(block) * BLOCK_TOKEN_WEIGHTS.get(kind, 1.0))) + 2
        if left < 45:
            break
    if (use_thread or left >= THREAD_MIN_TOKENS) and left >= THREAD_MIN_TOKENS - 10:
        blocks.append(paste_forwarded_thread(rng, slots, category, subject, earlier, left))
    return "\n\n".join(blocks)


# ---------------------------------------------------------------------------
# Ticket assembly
# ---------------------------------------------------------------------------
def add_greeting(rng: random.Random, slots: TicketSlots, opening: str) -> str:
    if opening[0].islower():  # already informal ("hi, ...", "i get ...")
        return opening
    greeting = slots.fill(rng.choice(GREETINGS))
    first_word = opening.split()[0]
    keep_capital = (first_word == "I" or first_word.startswith("I'") or first_word == PRODUCT
                    or (len(first_word) > 1 and first_word.isupper()))  # "API", "PDF", "CSV"
    first = opening if keep_capital else opening[0].lower() + opening[1:]
    return f"{greeting} {first}"


def make_subject(rng: random.Random, slots: TicketSlots, subjects: list[str], tone: str) -> str:
    plain = slots.fill(rng.choice(subjects))
    subject = plain
    roll = rng.random()
    if tone == "angry" and roll < 0.35:
        subject = subject.upper() if rng.random() < 0.4 else subject + rng.choice(["!!", "!!!", "!"])
    elif tone == "angry" and roll < 0.6:
        subject = "URGENT: " + subject
    elif tone == "terse" and roll < 0.5:
        subject = subject.lower()
    elif roll < 0.06:
        subject = f"[{slots.company}] {subject}"
    elif roll < 0.1:
        subject = "Question: " + subject[0].lower() + subject[1:]
    if not 3 <= len(subject.split()) <= 10:
        subject = plain
    return subject


def introduce_typos(rng: random.Random, text: str, count: int) -> str:
    """Swap, drop or double a letter in a few lowercase words."""
    pieces = re.split(r"(\s+)", text)
    candidates = [i for i, w in enumerate(pieces) if w.isalpha() and w.islower() and len(w) >= 5]
    for i in sorted(rng.sample(candidates, min(count, len(candidates)))):
        word = pieces[i]
        j = rng.randrange(1, len(word) - 2)
        kind = rng.randrange(3)
        if kind == 0:
            word = word[:j] + word[j + 1] + word[j] + word[j + 2:]
        elif kind == 1:
            word = word[:j] + word[j + 1:]
        else:
            word = word[:j] + word[j] + word[j:]
        pieces[i] = word
    return "".join(pieces)


def generic_pool(pools: dict, tags: list[str]) -> list[str]:
    sentences = list(pools.get("any", []))
    for tag in tags:
        sentences += [s for s in pools.get(tag, []) if s not in sentences]
    return sentences


def pick_body_candidates(rng: random.Random, category: str, topic: dict, tone: str):
    """Return candidate sentences as (section, priority, template); lower priority is added first.

    Sections fix the order in the text: 1 context, 2 topic details, 3 generic
    details, 4 troubleshooting, 6 tone, 7 request, 8 urgency and politeness.
    """
    candidates = []
    topic_details = list(topic["details"])
    rng.shuffle(topic_details)
    for rank, sentence in enumerate(topic_details):
        candidates.append((2, rank * 1.0 + rng.random(), sentence))
    generic = generic_pool(GENERIC_DETAILS[category], topic["tags"])
    for rank, sentence in enumerate(rng.sample(generic, min(6, len(generic)))):
        candidates.append((3, 1.5 + rank * 1.2 + rng.random() * 2, sentence))
    candidates.append((7, rng.random() * 2.5, rng.choice(topic["asks"] + GENERIC_ASKS[category])))
    if tone in ("polite", "neutral") and rng.random() < 0.6:
        candidates.append((1, 1 + rng.random() * 4, rng.choice(CONTEXT_SENTENCES)))
    steps = TROUBLESHOOTING_STEPS.get(surface_of(topic), []) if category == "technical" else []
    for rank, sentence in enumerate(rng.sample(steps, min(2, len(steps)))):
        candidates.append((4, 1 + rank * 2 + rng.random() * 3, sentence))
    if tone == "angry":
        for rank, sentence in enumerate(rng.sample(ANGRY_SENTENCES, 3)):
            candidates.append((6, rank * 1.5 + rng.random() * 2, sentence))
    elif tone == "polite":
        candidates.append((8, 1 + rng.random() * 3, rng.choice(POLITE_SENTENCES)))
    if rng.random() < 0.3:
        candidates.append((8, 2 + rng.random() * 4, rng.choice(URGENCY_SENTENCES)))
    candidates.sort(key=lambda c: c[1])
    return candidates


def join_sections(rng: random.Random, sections: list[tuple[int, str]]) -> str:
    """Join body sentences in section order, sometimes breaking into paragraphs."""
    out = ""
    previous = None
    for section, sentence in sections:
        if not out:
            out = sentence
        elif section == 9 or (section != previous and rng.random() < 0.3):
            out += "\n\n" + sentence
        else:
            out += " " + sentence
        previous = section
    return out


def build_ticket(rng: random.Random, category: str) -> tuple[str, str]:
    """Return (subject, text) for one ticket of the given category."""
    slots = TicketSlots(rng)
    topic = rng.choice(TOPICS[category])
    tone = weighted_choice(rng, TONES)
    if tone == "angry" and "request" in topic["tags"]:
        tone = "neutral"  # nobody shouts while asking for a quote
    target = draw_target_length(rng, tone)

    opening_template, subjects = rng.choice(topic["cases"])
    subject = make_subject(rng, slots, subjects, tone)
    opening = slots.fill(opening_template)
    if tone == "angry" and opening.endswith(".") and rng.random() < 0.4:
        opening = opening[:-1] + rng.choice(["!", "!!", "!!!"])
    if rng.random() < {"polite": 0.45, "neutral": 0.2, "angry": 0.05, "terse": 0.0}[tone]:
        opening = add_greeting(rng, slots, opening)

    sign_off = None
    if rng.random() < {"polite": 0.6, "neutral": 0.4, "angry": 0.25, "terse": 0.1}[tone]:
        sign_off = slots.fill(rng.choice(SIGN_OFFS))

    used = estimate_tokens(opening) + (estimate_tokens(sign_off) + 2 if sign_off else 0)
    # Long tickets: sentences up to a body goal, pasted material for the rest
    # (a forwarded thread needs more room than a log or a list).
    smallest_material = 45 if long_material_kinds(category, topic) else THREAD_MIN_TOKENS
    long_ticket = target >= LONG_MATERIAL_FROM and target - 70 >= smallest_material
    body_goal = min(target - smallest_material, rng.randrange(70, 150)) if long_ticket else target

    chosen: list[tuple[int, str]] = []
    if target >= 35 and rng.random() < 0.15:
        cross = slots.fill(rng.choice(CROSS_MENTIONS[category]))
        chosen.append((5, cross))
        used += estimate_tokens(cross)
    for section, _, template in pick_body_candidates(rng, category, topic, tone):
        if body_goal - used < 6:
            break
        sentence = slots.fill(template)
        chosen.append((section, sentence))
        used += estimate_tokens(sentence)
    if used < body_goal:
        closer = rng.choice(SHORT_CLOSERS)
        chosen.append((8, closer))
        used += estimate_tokens(closer)
    chosen.sort(key=lambda c: c[0])
    if long_ticket and target - used >= smallest_material - 10:
        earlier = [opening] + [s for _, s in chosen]
        chosen.append((9, paste_long_material(rng, slots, category, topic, subject, earlier, target - used)))

    body = join_sections(rng, chosen)
    text = opening
    if body:
        unpunctuated = opening[-1] not in ".?!"  # e.g. "how do i add a second admin to our team account"
        text += ("\n" if unpunctuated else "\n\n" if rng.random() < 0.25 else " ") + body
    if sign_off:
        text += "\n\n" + sign_off

    typo_p = {"polite": 0.08, "neutral": 0.12, "angry": 0.25, "terse": 0.3}[tone]
    if rng.random() < typo_p:
        text = introduce_typos(rng, text, min(3, 1 + len(text.split()) // 40))
    if tone == "terse" and rng.random() < 0.5:
        text = text.lower()
        if text.endswith(".") and rng.random() < 0.5:
            text = text[:-1]
    return subject, text


def generate_tickets(n: int, seed: int) -> list[dict]:
    """Generate n tickets (n/3 per category) in a deterministic shuffled order."""
    if n <= 0 or n % 3:
        raise ValueError("n must be a positive multiple of 3")
    rng = random.Random(seed)
    labels = [category for category in CATEGORIES for _ in range(n // 3)]
    rng.shuffle(labels)
    seen: set[str] = set()
    tickets = []
    width = max(4, len(str(n)))
    for index, category in enumerate(labels, 1):
        while True:
            subject, text = build_ticket(rng, category)
            if text not in seen:
                break
        seen.add(text)
        tickets.append({"id": f"T{index:0{width}d}", "subject": subject, "text": text, "category": category})
    return tickets


def write_tickets_csv(tickets: list[dict], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["id", "subject", "text", "category"], lineterminator="\n")
        writer.writeheader()
        writer.writerows(tickets)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Generate the synthetic support tickets in resources/sample_tickets.csv.")
    parser.add_argument("--n", type=int, default=DEFAULT_N, help="number of tickets, a multiple of 3 (default %(default)s)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed (default %(default)s)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output CSV (default resources/sample_tickets.csv)")
    args = parser.parse_args(argv)
    if args.n <= 0 or args.n % 3:
        parser.error("--n must be a positive multiple of 3")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    tickets = generate_tickets(args.n, args.seed)
    write_tickets_csv(tickets, args.out)
    counts = {c: sum(t["category"] == c for t in tickets) for c in CATEGORIES}
    print(f"wrote {len(tickets)} tickets to {args.out} ({', '.join(f'{c}={k}' for c, k in counts.items())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
