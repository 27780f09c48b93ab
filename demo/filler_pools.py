"""Off-topic debates and the generic pieces every demo debate shares: openers, closers,
rebuttals, digressions, meta remarks and spam (hand-written for this project; demo/make_demo.py
assembles the arguments from them)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DistractorDebate:
    """An off-topic debate; ``judged_for`` lists topics it shares words with."""

    title: str
    subject: str
    judged_for: tuple[int, ...]
    pro: tuple[str, ...]
    con: tuple[str, ...]


DISTRACTORS: tuple[DistractorDebate, ...] = (
    DistractorDebate(
        title="Energy drinks should be banned for teenagers",
        subject="energy drinks",
        judged_for=(2, 4),
        pro=(
            "{Energy drinks|These drinks} pack large doses of caffeine and sugar that can cause {heart palpitations|a racing heart} in {teenagers|teens}.",
            "Some supermarkets already refuse to sell energy drinks to under-16s, and a law would make that universal.",
            "{Students|Pupils} who drink them every day report poorer {sleep|concentration} and more headaches.",
            "Marketing for energy drinks deliberately targets young gamers and athletes.",
            "{Banning|A ban on} sales to minors worked for cigarettes, so the same approach could work here.",
        ),
        con=(
            "A can of energy drink contains roughly as much caffeine as a {strong|large} coffee, which nobody proposes to ban for teens.",
            "{Parents|Families}, not the {state|government}, should decide what their teenagers drink.",
            "Bans seldom work; teens would simply ask older friends to buy the drinks.",
            "Better labelling and education about caffeine would achieve more than a ban.",
            "Occasional consumption appears {harmless|safe} for {most|healthy} young people.",
        ),
    ),
    DistractorDebate(
        title="Free school lunches should be provided to all students",
        subject="free school lunches",
        judged_for=(1, 4),
        pro=(
            "Hungry {children|students} cannot {concentrate|focus} in lessons, so a free lunch boosts attention.",
            "Universal free school meals remove the {stigma|shame} of standing in a separate queue for low-income pupils.",
            "Checking eligibility for meal vouchers misses many households just above the {limit|threshold}.",
            "A {healthy|nutritious} school lunch may be the only balanced meal some kids eat all day.",
            "Eating together builds {social skills|table manners} and good eating habits.",
        ),
        con=(
            "Free lunches for every student would mean subsidising wealthy families who do not need help.",
            "Canteen food is often so {bland|unappealing} that pupils throw half of it away.",
            "The money would be better spent on {teachers|smaller classes} and books.",
            "Parents should stay responsible for what their kids eat.",
            "Home-made lunches let families handle allergies and dietary needs more easily than a canteen.",
        ),
    ),
    DistractorDebate(
        title="The national football team should bring back its classic kit",
        subject="the classic kit",
        judged_for=(1,),
        pro=(
            "The classic {kit|strip} connects supporters with the team's greatest victories.",
            "Retro {shirts|jerseys} sell extremely well, so the federation would earn more revenue.",
            "Every new uniform nowadays looks identical, just another template from the {sponsor|manufacturer}.",
            "Several players have said that wearing the traditional colours motivates them.",
        ),
        con=(
            "Sports uniforms need to evolve, and modern fabrics keep players cool.",
            "Selling a new shirt every season pays for the youth academy.",
            "Nostalgia does not win matches; good coaching does.",
            "The old kit looked dated, frankly, and few fans under thirty care about it.",
        ),
    ),
    DistractorDebate(
        title="Gyms should be open 24 hours a day, seven days a week",
        subject="24-hour gyms",
        judged_for=(3,),
        pro=(
            "Night-shift workers cannot exercise during regular opening hours, so round-the-clock access serves them.",
            "Crowds thin out across the whole week when the gym never closes.",
            "Access cards and {cameras|CCTV} keep unstaffed night hours affordable and safe.",
            "A busy working week leaves many people only late evenings and early mornings for the gym.",
        ),
        con=(
            "Training alone at night without staff is risky if you get injured.",
            "Running {24/7|around the clock} wastes electricity on nearly empty halls.",
            "Neighbours object to car doors and music late at night.",
            "Most members visit during the same peak hours anyway.",
        ),
    ),
    DistractorDebate(
        title="Exotic pets should be banned",
        subject="exotic pets",
        judged_for=(5, 4),
        pro=(
            "{Reptiles|Parrots|Monkeys} need specialised heat, light and diets that most households cannot provide.",
            "The trade in exotic animals removes countless creatures from the wild every year.",
            "Released pets turn into invasive species, like the pythons in Florida.",
            "Banning ownership would protect owners from diseases spread by exotic animals.",
        ),
        con=(
            "Experienced keepers give their reptiles excellent care, so a licence, not a ban, is the {answer|solution}.",
            "Most unusual pets today are bred in captivity, not taken from the wild.",
            "A ban would push the trade underground, where conditions get even worse.",
            "Caring for a {lizard|tortoise} teaches children responsibility just as a dog does.",
        ),
    ),
    DistractorDebate(
        title="Smartphones should not be allowed in classrooms",
        subject="phones in class",
        judged_for=(4, 1),
        pro=(
            "Constant notifications distract {students|pupils} from the lesson.",
            "Schools that banned phones reported less cyberbullying during the day.",
            "Pupils talk and play together more at break when screens are locked away.",
            "Cheating in tests gets far harder without a phone in the room.",
        ),
        con=(
            "Smartphones can be useful study tools for looking things up and as calculators.",
            "Parents need to reach their {children|kids} in an emergency.",
            "Teaching sensible phone use is wiser than forbidding devices altogether.",
            "Policing a phone ban wastes {teachers'|staff} time and causes arguments.",
        ),
    ),
    DistractorDebate(
        title="Professional athletes are overpaid",
        subject="athlete salaries",
        judged_for=(6,),
        pro=(
            "Star footballers earn more in a week than a nurse earns in {a year|several years}.",
            "Ticket prices keep rising to cover {huge|enormous} salaries, pricing out ordinary fans.",
            "Income this extreme sends the wrong signal about which work society rewards.",
            "A {salary|wage} cap like the ones in some {American|US} leagues would keep {clubs|teams} competitive.",
        ),
        con=(
            "Athletes have short careers and must earn most of their lifetime income in a few years.",
            "Salaries follow the huge sums that viewers and broadcasters spend, so the market decides.",
            "Only a small minority of professional athletes make big money; many barely make a living.",
            "Star players bring in sponsors and crowds that pay for the whole club.",
        ),
    ),
    DistractorDebate(
        title="Rooftop solar is better than small wind turbines for homes",
        subject="home solar panels",
        judged_for=(2,),
        pro=(
            "Solar panels have no moving parts, so upkeep is cheap.",
            "Most homes in towns do not get steady enough wind for a small turbine to pay off.",
            "Panel prices dropped sharply over the past decade, making renewable electricity at home affordable.",
            "{Neighbours|Councils} rarely object to panels, while a spinning {rotor|turbine} in the garden {causes|invites} complaints about noise.",
        ),
        con=(
            "Home wind turbines keep generating electricity at night and in winter, when panels give almost nothing.",
            "On exposed coastal sites, a single small turbine can beat a whole roof of panels.",
            "Mixing both renewables gives a steadier supply than either source on its own.",
            "A {north-facing|shaded} roof makes panels almost useless, whereas a turbine only needs an open {field|garden}.",
        ),
    ),
    DistractorDebate(
        title="Pineapple belongs on pizza",
        subject="pineapple pizza",
        judged_for=(),
        pro=(
            "The sweetness of pineapple cuts through salty ham and melted cheese.",
            "Cooking traditions evolve all the time, so purists should lighten up.",
            "Lots of customers order it every week, so obviously it tastes good to many.",
            "Nobody is forced to eat it; if you dislike it, {order|pick} something else.",
        ),
        con=(
            "Hot fruit turns the base soggy.",
            "A proper pizza is built on tomatoes, mozzarella and good dough, not canned fruit.",
            "The sugar drowns out every other topping.",
            "{Italians|Neapolitan cooks} would never serve it, and they invented the dish.",
        ),
    ),
    DistractorDebate(
        title="Working from home should be a legal right",
        subject="working from home",
        judged_for=(3,),
        pro=(
            "The daily commute eats an hour or more every day that could be spent with family.",
            "Staff who work from home turned out to be at least as productive in several surveys.",
            "A legal right to remote work helps {disabled|chronically ill} employees who find travel hard.",
            "Fewer cars on the road at rush hour means less {pollution|congestion} for everyone.",
        ),
        con=(
            "New employees learn much less without experienced colleagues nearby.",
            "Employers should be able to decide how their business is organised.",
            "Not every flat has room for a quiet desk, so a legal right means little to many workers.",
            "{Spontaneous|Informal} conversations in the corridor spark ideas that video calls {rarely|seldom} do.",
        ),
    ),
)

# Generic pieces shared by all debates.  "<X>" is replaced by a subject phrase,
# "<V>" by the side (Pro/Con) the author argues for.
OPENERS = (
    "I will keep this short.",
    "Thanks to my opponent for the debate so far.",
    "Let me start with my main point about <X>.",
    "My opponent did not really answer my last round, so I will restate my case.",
    "I want to look at <X> from a practical point of view.",
    "This question matters more than most people think.",
    "Here are my reasons.",
    "I have been thinking about <X> for quite a while.",
    "Rebuttals first, then my own case.",
    "Let me be clear about where I stand on <X>.",
    "Having read the previous rounds, I want to add a few points.",
)
CLOSERS = (
    "For these reasons, please vote <V>.",
    "I look forward to the next round.",
    "That is why I stand by my position.",
    "The burden of proof has not been met by my opponent.",
    "Vote <V>!",
    "I rest my case.",
    "Over to you.",
)
REBUTTALS = (
    "I do not find this convincing.",
    "This misses the point.",
    "That argument does not hold up.",
    "This is only half the story.",
    "Even if that were true, it would not change the overall picture.",
)
DIGRESSIONS = (
    "Anyway, I got a bit sidetracked there.",
    "My cousin said something similar once at a barbecue, but I forget the details.",
    "Sorry for typos, I am typing this on my phone.",
    "Not that anyone reads these long posts, but still.",
    "This reminds me of a documentary I half watched last year and now cannot find.",
    "Some will say I am drifting off topic here, but bear with me.",
    "I could honestly go on about this all day.",
    "Where was I? Right.",
)
# Procedural posts: they name the subject but make no argument (relevance 0).
META = (
    "I accept this challenge on <X> and will present my case in the next round.",
    "Thanks for starting this debate about <X>. Good luck!",
    "I am new to this site, so please be patient with me. This is my first debate and it is about <X>.",
    "Rules: round one is for acceptance only, no new arguments in the final round. The topic is <X>.",
    "I ran out of time this round. I will post my arguments about <X> later.",
    "Definitions: <X> means what everyone already understands it to mean. Let us begin.",
    "Before we start on <X>, could we agree on a character limit? I prefer shorter rounds.",
    "Interesting topic. I have never debated <X> before, so this should be fun.",
    "Round one is acceptance. I am taking the opposite side on <X>, as agreed in the comments.",
    "Posting a placeholder so I do not forfeit. My actual case on <X> follows next round.",
    "Could my opponent clarify the resolution first? I want to know exactly what we mean by <X>.",
    "Accepted. Sources for my points on <X> will be listed at the end of the debate.",
    "This is a rematch of our earlier debate on <X>. Same rules as last time.",
    "I will be travelling this week, so my response on <X> may come late. Apologies in advance.",
    "Voters, please read all rounds before judging. The debate on <X> starts below.",
    "Fine, I accept. Let us see who has the better case on <X>.",
)
# Spam and non-arguments (relevance -2).
SPAM = (
    "you are wrong lol",
    "first",
    "This round has been forfeited.",
    "asdf test post please ignore",
    "Subscribe to my channel for more hot takes!!!",
    "lol no",
    "k",
    "This debate is stupid and so are you.",
    "Click here to claim your free phone now",
    "...",
    "i dont even know what this is about",
    "hahahaha nice one",
    "My opponent forfeited, so I have nothing to respond to.",
    "whatever man",
    "Copy and paste this into five debates or bad luck follows you for a year.",
    "no u",
    "I forfeit, sorry, busy week.",
    "Buy cheap followers at our website, best prices guaranteed.",
)
