#!/usr/bin/env python3
"""Generate a second, "public-style" evaluation set: e-commerce helpdesk tickets.

Triage's label quality is otherwise measured only on resources/sample_tickets.csv
(a SaaS product, labels billing/technical/account).  This script writes
resources/helpdesk_tickets.csv, which looks like an export from an online
retailer's helpdesk instead: other wording, another taxonomy and other label
names, so that nothing gets tuned to one file.

Columns: ticket_id, created_at, channel, customer_message, queue.  ``queue`` is
the gold label, one of Shipping, Returns, Payments, Product, Website, with
deliberately imbalanced counts (160/120/90/80/50).  About 10% of the tickets
are cross-queue on purpose (e.g. no refund for a return the warehouse never
received; a payment error on the checkout page); they carry the queue a human
agent would route them to.

Standard library only; one random.Random(SEED) drives everything, so the
output is byte-identical between runs.  Run from anywhere:

    python scripts/make_helpdesk_tickets.py
"""

from __future__ import annotations

import csv
import datetime as dt
import random
from pathlib import Path

SEED = 2026
OUT = Path(__file__).resolve().parent.parent / "resources" / "helpdesk_tickets.csv"

QUEUE_COUNTS = {"Shipping": 160, "Returns": 120, "Payments": 90, "Product": 80, "Website": 50}
# How many tickets of each queue are drawn from the cross-queue pools (50 = 10%).
AMBIGUOUS_COUNTS = {"Shipping": 14, "Returns": 12, "Payments": 10, "Product": 8, "Website": 6}
MAX_WORDS = 120

# ---------------------------------------------------------------------------
# Slot values
# ---------------------------------------------------------------------------
FIRST_NAMES = ["Megan", "Raj", "Lucy", "Carlos", "Aisha", "Peter", "Noor", "Gemma", "Tobias", "Yara",
               "Kevin", "Maria", "Liam", "Chiara", "Dev", "Helen", "Oskar", "Bea", "Malik", "Sandra",
               "Jamie", "Ines", "Frank", "Leila", "Joe", "Ewa", "Sam", "Tanya", "Hugo", "Nadia"]
LAST_NAMES = ["Harris", "Kaur", "Bennett", "Alvarez", "Begum", "Jensen", "Hughes", "Wright", "Romano",
              "Ward", "Kovacs", "Lopez", "Price", "Nakamura", "Evans", "Adeyemi", "Becker", "Murphy"]
AGENTS = ["Jess", "Mark", "Priya", "Tom", "Abby", "Leon", "Sophie", "Dan"]
APPAREL = ["rain jacket", "merino sweater", "denim jacket", "running shoes", "hiking boots",
           "linen shirt", "puffer coat", "chino trousers", "wrap dress", "kids' rain boots",
           "sports bra", "leather belt", "wool socks (3-pack)", "trail shorts", "hoodie"]
GADGETS = ["wireless earbuds", "bluetooth speaker", "smartwatch", "phone case", "USB-C charger",
           "fitness tracker", "noise-cancelling headphones", "power bank", "webcam", "e-reader cover"]
HOMEWARE = ["cast-iron skillet", "linen duvet cover", "ceramic dinner set", "air fryer",
            "espresso machine", "bamboo cutting board", "wool throw blanket", "desk lamp",
            "stainless water bottle", "cotton bath towels", "knife block set", "yoga mat"]
COLOURS = ["navy", "black", "olive", "sand", "grey", "burgundy", "cream", "forest green", "rust"]
SIZES = ["S", "M", "L", "XL", "XS", "size 10", "EU 42", "UK 8", "EU 38", "US 11", "32/32"]
PHONES = ["iPhone 15", "iPhone 13 mini", "Pixel 8", "Galaxy S24", "OnePlus 12", "an older Android phone",
          "my MacBook Air", "a Windows laptop", "iPad Pro"]
CARRIERS = ["DHL", "UPS", "FedEx", "Royal Mail", "DPD", "USPS", "GLS", "Evri", "PostNL", "Canada Post"]
CITIES = ["Leeds", "Phoenix", "Glasgow", "Utrecht", "Hamburg", "Ottawa", "Brisbane", "Cork", "Lisbon",
          "Minneapolis", "Bristol", "Antwerp", "Seville", "Calgary", "Nottingham"]
STREETS = ["Maple Road", "Station Street", "Harbour View", "Kingsway", "Elm Avenue", "Mill Lane",
           "Queen Street", "Park Crescent", "Oak Drive", "Canal Walk"]
CARDS = ["Visa", "Mastercard", "Amex", "debit card", "Visa debit", "credit card"]
PAY_METHODS = ["PayPal", "Apple Pay", "Google Pay", "Klarna", "a gift card", "store credit",
               "bank transfer", "Afterpay"]
PROMO_CODES = ["SPRING20", "WELCOME10", "FREESHIP", "SUMMER15", "VIP25", "BFRIDAY30", "THANKYOU5",
               "STUDENT10", "NEWSLETTER15", "BUNDLE2"]
BROWSERS = ["Chrome", "Safari", "Firefox", "Edge", "the iOS app", "the Android app", "Safari on my phone"]
SITE_ERRORS = ["Something went wrong. Please try again later.", "Error 502 Bad Gateway",
               "Oops! We couldn't process your request.", "500 Internal Server Error",
               "Session expired", "This page isn't working", "Unexpected error (ref 7731)",
               "Page not found"]
CURRENCIES = [("$", "{:.2f}", ""), ("£", "{:.2f}", ""), ("€", "{:.2f}", ""), ("", "{:.2f}", " CAD"),
              ("A$", "{:.2f}", "")]
MONTH_ABBR = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

# ---------------------------------------------------------------------------
# Message parts.  Templates use str.format slots filled by make_slots().
# ---------------------------------------------------------------------------
GREETINGS_EMAIL = ["Hi,", "Hello,", "Hi there,", "Dear customer service,", "Good morning,",
                   "Hello team,", "Hi {agent},", "To whom it may concern,", "Hey,"]
GREETINGS_SHORT = ["hi", "hello", "hey", "Hi", "Hello there", "hi there", "good afternoon"]
SIGNOFFS = ["Thanks,\n{first}", "Kind regards,\n{first} {last}", "Best,\n{first}", "Cheers\n{first}",
            "Thank you,\n{first} {last}", "Regards,\n{first} {last}", "thx\n{first}",
            "Many thanks,\n{first}", "Sent from my iPhone"]
POLITE = ["Thanks so much in advance.", "I appreciate your help with this.", "Hope you can help!",
          "Sorry to bother you with this.", "Thank you for your time.", "No rush, just want to know."]
ANGRY = ["This is ridiculous.", "Honestly this is the worst experience I've had shopping online.",
         "This is the third time I'm contacting you about this!!", "I want this sorted TODAY.",
         "Very disappointed.", "I will be leaving a review about this.", "Nobody has replied to my last two emails.",
         "Seriously, how hard can it be?", "If this isn't fixed I'll dispute it with my bank."]
CONTEXT = [  # irrelevant or half-relevant background
    "It was supposed to be a birthday present for my sister.", "I've been ordering from you for years and never had an issue.",
    "I'm writing from my work laptop so sorry if this comes through twice.", "We are moving house at the end of the month.",
    "My husband placed the order on his phone but it's my account.", "I'm travelling next week so I won't be home much.",
    "I found you through an Instagram ad.", "The rest of my order was fine, by the way.",
    "Your chat bot just sent me around in circles.", "I work night shifts so email is easier for me than phone.",
    "English is not my first language, sorry for mistakes.", "My neighbour also ordered from you last week, no problems there.",
    "I already spent 20 minutes on hold.", "Love the brand otherwise!", "It's for a wedding on the {wedding_day}.",
]

# Per queue: "core" opens the ticket (1-3 sentences), "short" are chat-style one-liners,
# "details" are extra facts appended to longer tickets, "asks" are closing requests,
# "cross" are the deliberately cross-queue tickets routed to this queue.
QUEUES = {
    "Shipping": {
        "core": [
            "I ordered a {colour} {apparel} on {order_date} (order {order}) and it still hasn't arrived.",
            "My parcel was meant to be delivered {days} days ago and there is still nothing. Order number {order}.",
            "The tracking number you sent me ({tracking}) says 'label created' and hasn't moved since {order_date}.",
            "Where is my order? {order}, placed on {order_date}. The confirmation said 3-5 working days.",
            "I just noticed I put my old address on order {order}. It should go to {house} {street}, {city}, not the old flat. Can it still be changed?",
            "{carrier} says my package is 'held at depot' in {city}. What does that mean and when will I get it?",
            "The box arrived today but it was completely crushed and the {homeware} inside is broken.",
            "I paid for next-day delivery on {order_date} and it's now {days} days later. Order {order}.",
            "Tracking shows delivered at 2:14pm but I was home all day and nobody came to the door.",
            "Is it possible to ship order {order} to a pickup point instead? I won't be home this week.",
            "The {carrier} driver left a card saying they tried to deliver, but I was in. How do I rebook?",
            "I got an email saying my order was dispatched but the tracking link just says 'no information available yet'.",
            "My order {order} was split into two parcels. One came, the other one with the {gadget} is missing.",
            "Do you deliver to {country}? I'm trying to send a gift to my cousin there.",
            "Package has been 'in transit' for over a week now. It went from {city} to the sorting centre and then nothing.",
            "The courier left my parcel on the doorstep in the rain and the {apparel} is soaked through.",
            "Got a notice that customs fees of {amount} are due before {carrier} will deliver. Nobody told me about this at checkout.",
        ],
        "short": [
            "where is my order {order}??", "my parcel is still not here", "any update on delivery for {order}?",
            "tracking hasn't updated in {days} days", "When will my order actually ship?",
            "wrong address on my order, can u fix", "says delivered but there's no parcel",
            "the box arrived all smashed up", "is {carrier} still delivering today? waiting in",
            "how long does delivery to {city} take", "order {order} not arrived yet",
            "can i change the delivery address pls", "my package is stuck in customs since {order_date}",
        ],
        "details": [
            "I checked the {carrier} website and it just says 'in transit'.", "The tracking number is {tracking}.",
            "My neighbours haven't got it either, I asked.", "I'm at {house} {street}, {city}.",
            "There's a safe place by the back gate if that helps the driver.", "The order total was {amount}.",
            "I've looked everywhere around the building.", "I've attached a screenshot of the tracking page.",
            "The last scan was at the {carrier} hub in {city} on {order_date}.",
            "I ordered it early exactly so it would be here in time.",
            "The estimated delivery date keeps moving.", "I paid extra for the express option.",
        ],
        "asks": [
            "Can you tell me where it actually is?", "Please let me know when I can expect it.",
            "Can you chase this with the courier?", "If it's lost, can you send a new one?",
            "What are my options?", "Please update me asap.",
        ],
        "cross": [
            # missing item / delivered-not-received: courier issue first, even if a refund is mentioned
            "Order {order} shows delivered but I never got it. Do I need to ask for a refund or will you investigate with {carrier} first?",
            "Only half my order came. The {apparel} is here but the {gadget} isn't, and I was charged for both.",
            "I changed the address in my account settings before the order shipped but it still went to my old address in {city}.",
            "The {gadget} arrived with the box smashed and it won't turn on. I don't want to return it, I want a replacement sent out.",
            "I paid {amount} for express delivery and it came 6 days late. The tracking says it sat in a warehouse in {city} for 4 days.",
            "My order was cancelled?? I got an email saying 'undeliverable, returned to sender' but the address is correct.",
            "The website said 'in stock, ships today' but my order {order} has been 'processing' for {days} days.",
            "I can't log in to see tracking, but can you just tell me where order {order} is? It's been two weeks.",
        ],
    },
    "Returns": {
        "core": [
            "I'd like to send back the {colour} {apparel} from order {order}, it doesn't fit. How do I do that?",
            "Can I exchange the {apparel} for a {size}? The one I got is too small.",
            "I returned my {apparel} on {return_date} and still haven't seen the money back. It's been {days} days.",
            "The prepaid label in my return email doesn't print properly, the barcode is cut off.",
            "How long do refunds take once you receive the item? I dropped it at the {carrier} shop on {return_date}.",
            "The {homeware} isn't what I expected from the photos. Is it too late to send it back? I got it {days} days ago.",
            "I sent two items back but only got refunded for one of them.",
            "You sent me the wrong colour ({colour} instead of the one I chose). I'd like to swap it.",
            "Is there a fee for returns? The policy page says free but my refund was {amount} less than I paid.",
            "I bought the {gadget} as a gift and it was a duplicate. Can I get store credit instead of a refund?",
            "Do I need the original packaging to return the {homeware}? I threw the box away.",
            "Can I return something I bought in the sale? Order {order}.",
            "My return was marked as 'received' on {return_date} but the refund status still says pending.",
            "I want to return the whole order, nothing fits. Can you email me a label please?",
            "Can I drop a return off at a {carrier} locker or does it have to be the post office?",
            "The exchange I asked for never came, only an email saying the refund was processed. I wanted the other size, not my money.",
        ],
        "short": [
            "how do i send something back", "need a return label for {order}", "where's the refund for my return?",
            "can i swap the {apparel} for a {size}", "the return label is not scanning", "still waiting on my refund, sent it {return_date}",
            "is sending it back free?", "how many days do I have to send back", "exchange please, the {apparel} is too big",
            "did you get my parcel back yet", "want to send the {apparel} back",
        ],
        "details": [
            "The return tracking number is {tracking}.", "The tags are still on and it hasn't been worn.",
            "I paid {amount} for it.", "I have the receipt from the drop-off.",
            "The reason I picked was 'too small'.", "I returned it within the 30 days.",
            "I kept the proof of postage, it's a little paper slip with a barcode on it.",
            "Honestly the quality just wasn't what I expected for the price.",
            "I filled in the returns slip that came in the box.", "I used the {carrier} drop-off in {city}.",
        ],
        "asks": [
            "Please let me know what to do next.", "When will I get my money back?",
            "Can you confirm you've got it?", "Could you send a new label?",
            "Please process the exchange asap.", "How do I proceed?",
        ],
        "cross": [
            # refund on a return the warehouse never logged: a returns-team case, not a payments one
            "I sent my return back {days} days ago and {carrier} tracking says delivered to your warehouse, but you say you never received it. Where is my refund?",
            "My refund came through but it's only {amount}, not the full price. I returned the whole order.",
            "I paid with {pay_method} and returned the {apparel}. Will the refund go back to {pay_method} or somewhere else? It's been two weeks.",
            "The {gadget} stopped working after 5 days. I just want to send it back and get my money refunded.",
            "I can't find the returns button on the website for order {order}. I'd like to return the {homeware}.",
            "The {apparel} arrived with a hole in the sleeve. Can I swap it for a new one, same size?",
            "The return label you sent is for {carrier} but there's no {carrier} near me in {city}. Can I ship it back another way and get reimbursed?",
            "I was charged a restocking fee of {amount} on my return. Nobody mentioned that. Can you check my refund?",
        ],
    },
    "Payments": {
        "core": [
            "My {card} keeps getting declined at checkout even though there's plenty of money on it.",
            "I was charged twice for order {order}, both for {amount}. Please refund one of them.",
            "The discount code {promo} didn't apply, I paid full price.",
            "I need an invoice with VAT for order {order} for my company expenses.",
            "Can I pay with {pay_method}? I don't see the option.",
            "My bank statement shows a charge of {amount} from you that I don't recognise.",
            "I tried to use {promo} and it says 'code not valid', but your email says it's valid until the end of the month.",
            "Why was I charged {amount} when the basket total said {amount2}?",
            "Can you split the payment between a gift card and my {card}?",
            "I have a pending charge on my card for an order that failed. Will it drop off?",
            "The price of the {homeware} dropped the day after I bought it. Can you refund the difference?",
            "I need a proper receipt with your company address on it, the confirmation email isn't enough for my employer.",
            "I got a {bnpl} reminder saying my instalment is overdue, but I paid it on {order_date}.",
            "The gift card I got for my birthday shows a balance of zero. It should have {amount} on it.",
            "Is it possible to change the card on an order that hasn't shipped yet? The one I used is being cancelled.",
            "Your email said I get 10% off my first order but it wasn't taken off.",
        ],
        "short": [
            "my card keeps getting declined", "you charged me twice?! order {order}", "promo code {promo} not working",
            "can i get a vat invoice pls", "do you take {pay_method} at all", "why was my card charged {amount}",
            "the discount didnt apply at checkout", "need a receipt for {order}", "my gift card balance is wrong",
            "payment has been pending for {days} days", "can I pay for this in instalments",
            "code {promo} says expired but it shouldn't be",
        ],
        "details": [
            "The card ends in {last4}.", "I called my bank and they say everything looks fine on their side.",
            "I've attached the confirmation email and a screenshot of my banking app.",
            "I'm on a tight budget this month so I really need this money back.",
            "I can send a screenshot of the statement.", "It's a {card}.", "The order number is {order}.",
            "I tried three times and it failed every time.", "The charge date was {order_date}.",
            "My company name is {last} Ltd, for the invoice.",
        ],
        "asks": [
            "Please sort out the refund.", "Can you check what went wrong?",
            "Can you apply the discount retroactively?", "Please email it to me.",
            "How do I fix this?", "Please confirm when it's done.",
        ],
        "cross": [
            # errors shown at checkout that are really about money
            "The checkout page said 'payment failed' so I ordered again, but now my {card} has been charged for both orders.",
            "I returned an item and got refunded, but I was also charged a second time for the same order on {order_date}. Two separate charges of {amount}.",
            "Free delivery was supposed to apply over {amount2} but I was still charged for shipping on order {order}.",
            "The app crashed right after I pressed pay. My bank shows {amount} pending but I have no confirmation email. Did the order go through?",
            "I cancelled order {order} before it shipped and got the cancellation email, but the money was taken from my account anyway.",
            "The code {promo} worked on the website but when I switched to the app the price went back up. Which price will I actually pay?",
            "My {pay_method} payment was approved but the order page says 'awaiting payment'. Do I need to pay again?",
        ],
    },
    "Product": {
        "core": [
            "Does the {gadget} work with {phone}?", "What size should I get in the {apparel}? I'm usually a {size}.",
            "Will the {colour} {apparel} be back in stock in {size}?",
            "Is the {homeware} dishwasher safe?", "How long is the warranty on the {gadget}?",
            "Can the {homeware} go in the oven? The description doesn't say.",
            "Does the {apparel} come up true to size or small?",
            "What is the {apparel} actually made of? The label says one thing and the website another.",
            "Does the {gadget} come with a charger or just the cable?",
            "How should I wash the {apparel}? I don't want it to shrink.",
            "Is the {homeware} suitable for induction hobs?",
            "The {gadget} battery only lasts a couple of hours, the listing says 20. Is that normal?",
            "Is there a difference between the {colour} and the white version apart from colour? The price is different.",
            "Do you have the {homeware} in a bigger size? Need it for a family of six.",
            "My {apparel} started pilling after two washes. Is that covered by the quality guarantee?",
            "Is the {gadget} waterproof? I want to use it at the pool.",
        ],
        "short": [
            "is the {gadget} waterproof?", "does the {gadget} work with {phone}", "what size {apparel} for 180cm?",
            "when is the {apparel} in {size} back in stock", "is the {homeware} dishwasher safe",
            "how long is the warranty on the {gadget}?", "does the {apparel} run true to size?",
            "what's the {apparel} made of", "can I machine wash the {apparel}",
            "do you sell replacement parts for the {homeware}",
        ],
        "details": [
            "I'm about 170 cm and 65 kg if that helps.", "I already have the older model.",
            "The product page is a bit vague about this.", "I bought it {days} days ago.",
            "The reviews say different things.", "It's for my {relative}.",
            "I looked at the questions section on the page but nobody had asked this.",
            "Last time I bought from a different brand it was a disaster, so I want to get it right.",
            "I've attached a photo of the care label.", "I'd buy two if it's the right fit.",
        ],
        "asks": [
            "Any advice would be great.", "Can you confirm before I order?", "Thanks for any info.",
            "Can you check with the manufacturer?", "Please let me know.",
        ],
        "cross": [
            # pre-purchase / warranty questions that mention returns or payments in passing
            "Is the {gadget} compatible with {phone}? If it isn't, can I send it back without paying for return postage?",
            "The zip on my {apparel} broke after two months of normal wear. Is that covered under warranty or do I have to buy a new one?",
            "The {homeware} I want is out of stock. Will it restock soon, and will my {promo} code still work then?",
            "The size guide link on the {apparel} page seems to show the kids' chart. Which adult size matches {size}?",
            "My {gadget} stopped charging after 11 months. Can you repair it or do I need to go to the manufacturer?",
            "I'm between a {size} and the next size up in the {apparel}. If I order both can I return one easily?",
        ],
    },
    "Website": {
        "core": [
            "I can't log in to my account. It keeps saying my password is wrong even after resetting it.",
            "The password reset email never arrives. I've checked spam.",
            "The checkout page just freezes when I click 'continue to delivery'. Tried in {browser}.",
            "Your site keeps showing '{site_error}' when I try to open my orders.",
            "The link in your newsletter goes to a page that doesn't exist.",
            "I can't add anything to my basket, the button does nothing.",
            "The app logs me out every time I close it.",
            "The search on your site returns nothing, even for things I know you sell.",
            "My wishlist has disappeared from my account.",
            "I keep getting 'verification code invalid' when I try to sign in on {browser}.",
            "The page just goes blank on {browser} when I try to view the {apparel}.",
            "I want to delete my account on your shop but can't find how.",
            "The 'track my order' page gives an error: {site_error}.",
            "Images aren't loading anywhere on your site for me, just grey boxes.",
        ],
        "short": [
            "cant log in to my account", "the reset email is not arriving", "is your site down right now?",
            "checkout keeps crashing on {browser}", "your app won't open on my phone", "getting '{site_error}' on your site",
            "the login code is not working", "the link in your email is broken", "your page won't load on {browser}",
        ],
        "details": [
            "I'm using {browser}.", "I've cleared cookies and cache already.", "It started around {order_date}.",
            "My email is {first}.{last}@example.com.", "It works on my partner's phone but not mine.",
            "I tried turning it off and on again, same thing.", "Screenshot attached.",
            "I've tried on my laptop and my phone, both on wifi and mobile data.",
            "I really want to get my order in before the sale ends.",
        ],
        "asks": [
            "Can someone look into it?", "Is there a known issue?", "Please fix, I want to place an order.",
            "Can you reset it from your side?", "Let me know when it's working.",
        ],
        "cross": [
            # checkout / login failures where no money moved: a site problem
            "Every time I enter my card details on the checkout page it goes to a white screen. No charge on my card, I just can't pay.",
            "I want to start a return but I can't log in to my account to print the label. Password reset email never comes.",
            "The tracking link in my dispatch email goes to a 404 page on your site. Can you fix the link?",
            "The promo code box has disappeared from the checkout page in {browser}, so I can't even enter {promo}.",
            "The 'pay with {pay_method}' button on the checkout page does nothing when I tap it. Tried on two phones.",
        ],
    },
}

COUNTRIES = ["Norway", "Switzerland", "Mexico", "Japan", "South Africa", "Iceland", "New Zealand"]
RELATIVES = ["son", "daughter", "mum", "dad", "partner", "grandmother", "niece"]
TYPO_SWAPS = {"receive": "recieve", "received": "recieved", "definitely": "definately", "address": "adress",
              "tomorrow": "tommorow", "until": "untill", "separate": "seperate", "because": "becuase",
              "package": "pakage", "really": "realy", "which": "wich", "refund": "refudn", "order": "oder"}


def money(rng: random.Random, currency, low: float, high: float) -> str:
    sym, fmt, suffix = currency
    value = round(rng.uniform(low, high), 2)
    if rng.random() < 0.4:
        value = int(value) + 0.99
    return f"{sym}{fmt.format(value)}{suffix}"


def human_date(rng: random.Random, day: dt.date) -> str:
    style = rng.random()
    if style < 0.4:
        return f"{day.day} {MONTH_ABBR[day.month - 1]}"
    if style < 0.7:
        return f"{MONTH_ABBR[day.month - 1]} {day.day}"
    if style < 0.85:
        return f"{day.day}/{day.month}"
    return day.strftime("%A")  # "Tuesday"


def ordinal(n: int) -> str:
    return f"{n}{'th' if 11 <= n <= 13 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def make_slots(rng: random.Random, created: dt.datetime) -> dict:
    currency = rng.choice(CURRENCIES)
    order_kind = rng.random()
    if order_kind < 0.45:
        order = f"#{rng.randint(1000000, 9999999)}"
    elif order_kind < 0.8:
        order = f"ORD-{rng.randint(200000, 899999)}"
    else:
        order = str(rng.randint(40000000, 49999999))
    order_day = created.date() - dt.timedelta(days=rng.randint(2, 30))
    return_day = created.date() - dt.timedelta(days=rng.randint(3, 20))
    trk = rng.random()
    if trk < 0.35:
        tracking = "1Z" + "".join(rng.choice("0123456789ABCDEFGHJKLMNPRSTVWXY") for _ in range(16))
    elif trk < 0.7:
        tracking = f"JD{rng.randint(10**15, 10**16 - 1)}"
    else:
        tracking = f"{rng.choice('AHKRL')}{rng.choice('BFMQ')}{rng.randint(10**8, 10**9 - 1)}GB"
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    return {
        "order": order, "order_date": human_date(rng, order_day), "return_date": human_date(rng, return_day),
        "days": rng.randint(3, 21), "tracking": tracking, "carrier": rng.choice(CARRIERS),
        "city": rng.choice(CITIES), "street": rng.choice(STREETS), "house": rng.randint(2, 180),
        "country": rng.choice(COUNTRIES), "apparel": rng.choice(APPAREL), "gadget": rng.choice(GADGETS),
        "homeware": rng.choice(HOMEWARE), "colour": rng.choice(COLOURS), "size": rng.choice(SIZES),
        "phone": rng.choice(PHONES), "amount": money(rng, currency, 12, 260),
        "amount2": money(rng, currency, 10, 200), "card": rng.choice(CARDS),
        "pay_method": rng.choice(PAY_METHODS), "bnpl": rng.choice(["Klarna", "Afterpay", "PayPal Pay in 3"]), "promo": rng.choice(PROMO_CODES),
        "last4": f"{rng.randint(0, 9999):04d}", "browser": rng.choice(BROWSERS),
        "site_error": rng.choice(SITE_ERRORS), "first": first, "last": last, "agent": rng.choice(AGENTS),
        "relative": rng.choice(RELATIVES),
        "wedding_day": ordinal(rng.randint(1, 28)),
    }


def add_typos(rng: random.Random, text: str) -> str:
    words = text.split(" ")
    for i, word in enumerate(words):
        core = word.strip(".,?!'").lower()
        if core in TYPO_SWAPS and rng.random() < 0.35:
            words[i] = word.lower().replace(core, TYPO_SWAPS[core])
    candidates = [i for i, w in enumerate(words) if w.isalpha() and len(w) >= 5]
    for i in rng.sample(candidates, min(len(candidates), rng.randint(0, 2))):
        w = words[i]
        j = rng.randint(1, len(w) - 2)
        words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:] if rng.random() < 0.6 else w[:j] + w[j + 1:]
    return " ".join(words)


def compose(rng: random.Random, queue: str, cross: bool, channel: str, slots: dict) -> str:
    spec = QUEUES[queue]
    r = rng.random()
    if channel == "chat":
        style = "short" if r < 0.55 else ("medium" if r < 0.95 else "long")
    elif channel == "email":
        style = "short" if r < 0.08 else ("medium" if r < 0.55 else "long")
    else:
        style = "short" if r < 0.2 else ("medium" if r < 0.8 else "long")
    if cross and style == "short":
        style = "medium"
    tone = rng.choices(["neutral", "polite", "angry"], weights=[5, 3, 2])[0]

    if style == "short":
        text = rng.choice(spec["short"])
        if rng.random() < 0.25:
            text = f"{rng.choice(GREETINGS_SHORT)} {text}"
        if tone == "angry" and rng.random() < 0.5:
            text = text.rstrip("?!.") + rng.choice(["!!", "???", " - really annoyed", ". not happy"])
        body = text.format_map(slots)
        return body.lower() if rng.random() < 0.5 else body

    body = [rng.choice(spec["cross"] if cross else spec["core"])]
    n_details = rng.randint(0, 1) if style == "medium" else rng.randint(3, 6)
    body += rng.sample(spec["details"], n_details)
    if style == "long" or rng.random() < 0.2:
        ctx = rng.sample(CONTEXT, 1 if style == "medium" else rng.randint(1, 3))
        for c in ctx:
            body.insert(rng.randint(0 if rng.random() < 0.3 else 1, len(body)), c)
    if tone == "angry":
        body.insert(rng.randint(1, len(body)), rng.choice(ANGRY))
        if style == "long":
            body.append(rng.choice(ANGRY))
    if rng.random() < 0.7:
        body.append(rng.choice(spec["asks"]))
    if tone == "polite":
        body.append(rng.choice(POLITE))

    def render(parts):
        text = " ".join(parts).format_map(slots)
        return text

    # keep within MAX_WORDS by dropping optional sentences (never the first one)
    while len(render(body).split()) > MAX_WORDS - 12 and len(body) > 1:
        body.pop(rng.randint(1, len(body) - 1))
    text = render(body)

    if rng.random() < 0.18:
        text = add_typos(rng, text)
    if channel == "chat" and rng.random() < 0.35:
        text = text.lower()

    if channel == "email" and rng.random() < 0.75:
        greeting = rng.choice(GREETINGS_EMAIL).format_map(slots)
        text = f"{greeting}\n\n{text}"
        if rng.random() < 0.7:
            text = f"{text}\n\n{rng.choice(SIGNOFFS).format_map(slots)}"
    elif channel != "email" and rng.random() < 0.3:
        first_word = text.split(" ", 1)[0]
        if first_word[1:].islower() or first_word == "I":
            text = text[0].lower() + text[1:]
        text = f"{rng.choice(GREETINGS_SHORT).capitalize()}, {text}"
    if channel == "web form" and rng.random() < 0.3:
        text = f"Order number: {slots['order']}\n{text}"
    return text


def main() -> None:
    rng = random.Random(SEED)
    plan = []
    for queue, count in QUEUE_COUNTS.items():
        plan += [(queue, i < AMBIGUOUS_COUNTS[queue]) for i in range(count)]
    rng.shuffle(plan)

    start = dt.datetime(2026, 1, 1)
    seconds_in_year = 365 * 24 * 3600
    stamps = sorted(start + dt.timedelta(seconds=rng.randrange(seconds_in_year)) for _ in plan)

    rows = []
    for n, ((queue, cross), created) in enumerate(zip(plan, stamps)):
        channel = rng.choices(["email", "chat", "web form"], weights=[45, 30, 25])[0]
        slots = make_slots(rng, created)
        rows.append({
            "ticket_id": f"HD-{10001 + n}",
            "created_at": created.strftime("%Y-%m-%dT%H:%M:%S"),
            "channel": channel,
            "customer_message": compose(rng, queue, cross, channel, slots),
            "queue": queue,
        })

    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["ticket_id", "created_at", "channel", "customer_message", "queue"])
        writer.writeheader()
        writer.writerows(rows)

    counts = {q: sum(r["queue"] == q for r in rows) for q in QUEUE_COUNTS}
    print(f"wrote {len(rows)} tickets to {OUT.name}: " + ", ".join(f"{q}={c}" for q, c in counts.items())
          + f" ({sum(AMBIGUOUS_COUNTS.values())} cross-queue)")


if __name__ == "__main__":
    main()
