"""The demo collection's six topics and the sentence pools their arguments are built from
(hand-written for this project; demo/make_demo.py assembles the arguments from them)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Topic:
    """One Touché topic plus the sentence pools its arguments are built from.

    ``debates`` holds (debate title, polarity); polarity +1 means the title
    answers the topic question with "yes", -1 with "no".  ``pro`` sentences
    support "yes", ``con`` sentences support "no".
    """

    number: int
    title: str
    description: str
    narrative: str
    subjects: tuple[str, ...]
    debates: tuple[tuple[str, int], ...]
    pro: tuple[str, ...]
    con: tuple[str, ...]
    pro_claims: tuple[str, ...]
    con_claims: tuple[str, ...]
    tangential: tuple[str, ...]
    bare_pro: tuple[str, ...]
    bare_con: tuple[str, ...]
    partner: int  # topic whose arguments also land in this topic's pool


TOPICS: tuple[Topic, ...] = (
    Topic(
        number=1,
        title="Should students have to wear school uniforms?",
        description=(
            "A school council is discussing whether to make a uniform compulsory. "
            "The user wants arguments for and against requiring pupils to wear "
            "school uniforms."
        ),
        narrative=(
            "Highly relevant arguments take a clear position on whether school "
            "uniforms should be mandatory, with reasons such as cost, equality, "
            "discipline, belonging or self-expression. Relevant arguments touch on "
            "uniforms only in passing or discuss school dress rules in general. "
            "Arguments about uniforms outside school (sports kits, work clothing) "
            "or about other school policies are not relevant."
        ),
        subjects=(
            "school uniforms",
            "mandatory uniforms",
            "compulsory school uniforms",
            "uniform policies in schools",
        ),
        debates=(
            ("School uniforms should be mandatory", 1),
            ("Schools should require uniforms", 1),
            ("School uniforms do more harm than good", -1),
            ("Students should be free to choose what they wear to school", -1),
            ("Uniforms improve student behaviour", 1),
        ),
        pro=(
            "When everyone wears the same {outfit|clothes}, nobody is {bullied|teased|mocked} for not owning {expensive|designer|brand-name} clothing.",
            "Uniforms {remove|take away} a daily decision from {students|pupils|kids}, which saves time every morning.",
            "Over a school year, a few uniform sets {usually cost|tend to cost} less than keeping up with {fashion trends|changing trends}.",
            "A uniformed student body makes it easier for staff to spot {strangers|intruders|adults who do not belong} on {campus|school grounds}.",
            "Wearing a uniform {signals|marks} that school is a place for {learning|work}, much like {adults|professionals} dress differently for {their jobs|the office}.",
            "{Pupils|Students} who wear uniforms often say they feel part of a {team|community} and take pride in their school.",
            "Teachers spend less time {policing|enforcing} vague dress codes when the rule is simply to wear the uniform.",
            "Social pressure around clothing starts {early|very young}, and a uniform policy {takes the edge off|reduces} it during the school day.",
            "Many {families|parents} report that buying uniforms is simpler than {arguing|fighting} with their {children|kids} about what is appropriate.",
            "Schools can {offer|provide} second-hand uniforms or grants, so cost does not have to be a barrier.",
            "Uniforms do not stop self-expression entirely, since {students|pupils} can still express themselves through {hobbies|clubs and art|what they say}.",
            "Several schools that {introduced|adopted} uniforms reported {calmer classrooms|fewer disruptions}, even if the effect is hard to {measure|isolate}.",
            "A shared uniform puts the {rich|wealthy} kid and the poor kid on {equal|the same} footing for a few hours a day.",
            "Gang colours and {offensive|provocative} slogans simply {disappear|vanish} from hallways when a uniform is {required|compulsory}.",
            "Getting used to a {dress standard|dress code} at school prepares young people for workplaces that expect the same.",
        ),
        con=(
            "Forcing every {student|pupil} into the same {outfit|clothes} {suppresses|stifles} {individuality|self-expression} at an age when identity is forming.",
            "Uniforms can be {expensive|costly}, especially when a school insists on {one|a single} supplier with {inflated|high} prices.",
            "There is little {solid|reliable} evidence that uniforms improve {grades|test scores|academic results}.",
            "Bullies always find something else to {target|pick on}, such as shoes, phones or {haircuts|hairstyles}.",
            "Many uniform policies contain {gendered|sexist} rules, like forcing girls to wear skirts {in winter|even when it is cold}.",
            "{Students|Pupils|Teenagers} should learn to make their own {choices|decisions}, and choosing clothes is a {harmless|safe} place to start.",
            "Enforcing uniform rules {wastes|eats up} {teaching|class} time on {checking|inspecting} ties, socks and skirt lengths.",
            "Uniforms {hide|mask} poverty only on the surface, because the {differences|inequality} {show|shows} up in everything else {students|kids} own.",
            "Some uniforms are {uncomfortable|itchy} or unsuitable for hot weather, which makes it harder to {concentrate|focus}.",
            "A basic dress code that {bans|forbids} offensive clothing would {solve|address} the real problems without {requiring|demanding} identical clothes.",
            "{Kids|Children} who cannot afford a clean uniform every day are {punished|sanctioned} for something that is not their fault.",
            "{Religious|Cultural} clothing can clash with strict uniform rules, causing {conflicts|disputes} that hurt {minority|some} families.",
            "Uniforms teach {conformity|obedience} rather than {critical thinking|independent thought}, which is the opposite of what {schools|education} should aim for.",
            "Countries with no uniform tradition do not {appear|seem} to have worse {schools|discipline} than countries that require them.",
            "{Banning|Forbidding} everyday clothes sends the message that {young people|teenagers} cannot be trusted.",
        ),
        pro_claims=(
            "Uniforms reduce bullying over clothing",
            "School uniforms save families money",
            "Uniforms create a sense of community",
            "A uniform policy improves discipline",
        ),
        con_claims=(
            "Uniforms stifle self-expression",
            "School uniforms are an unnecessary cost",
            "Uniforms do not improve learning",
            "A simple dress code is enough",
        ),
        tangential=(
            "Dress codes in general have become stricter in many {schools|high schools}, covering hats, hoodies and even hair colour.",
            "The history of school clothing goes back {centuries|hundreds of years}, to charity schools that handed out {plain|simple} coats to poor children.",
            "Private schools {often|tend to} use their {blazers|crests} as part of their brand and {marketing|advertising}.",
            "Whether {teachers|staff} should follow a dress code is a separate question, but it says a lot about how schools see themselves.",
            "A few schools let students vote on clothing rules, which is an interesting {exercise|lesson} in democracy.",
            "Clothing {manufacturers|retailers} earn a lot of money from back-to-school sales every year.",
            "Children grow so fast that clothes bought in September may not fit by {spring|summer}.",
            "Self-expression at school also happens through music, sport, art and the way {students|pupils} talk, not just clothing.",
        ),
        bare_pro=(
            "uniforms are great and everyone should wear them",
            "School uniforms are good. Simple.",
            "i liked my uniform, it was fine",
        ),
        bare_con=(
            "uniforms suck",
            "Nobody wants to wear an ugly uniform. End of story.",
            "school uniforms are dumb and pointless",
        ),
        partner=4,
    ),
    Topic(
        number=2,
        title="Should nuclear energy be expanded?",
        description=(
            "A user worried about climate change wonders whether building more "
            "nuclear reactors is a good idea, compared with relying on renewables "
            "alone."
        ),
        narrative=(
            "Highly relevant arguments take a position on expanding or phasing out "
            "nuclear power, for example regarding emissions, safety, waste, cost or "
            "construction time. Relevant arguments discuss nuclear power without a "
            "clear position on its expansion, or mention it only briefly. Arguments "
            "about nuclear weapons, or about energy in general without reference to "
            "nuclear power, are not relevant."
        ),
        subjects=(
            "nuclear energy",
            "nuclear power",
            "building new reactors",
            "atomic energy",
        ),
        debates=(
            ("Nuclear power is the best option to cut emissions", 1),
            ("Countries should phase out nuclear energy", -1),
            ("We need more nuclear reactors", 1),
            ("Renewables, not nuclear, are the future", -1),
            ("Nuclear energy is safe", 1),
        ),
        pro=(
            "{Nuclear plants|Nuclear power stations|Reactors} produce {almost no|very little} carbon dioxide while running.",
            "Unlike solar and wind, a reactor delivers {steady|constant} power {day and night|around the clock}, whatever the weather.",
            "Measured per unit of electricity, nuclear power has caused fewer deaths than coal, oil or gas.",
            "The total volume of {spent fuel|nuclear waste} is {small|tiny} and can be stored safely in {sealed|steel and concrete} casks.",
            "{Modern|Newer} reactor designs {shut themselves down|cool themselves} without human intervention if something goes wrong.",
            "A single reactor needs {far|much} less land than a solar {farm|park} with the same output.",
            "Countries that invested in reactors decades ago, such as France, enjoy some of the cleanest electricity {grids|systems} in Europe.",
            "Relying only on renewables would require {huge|enormous} storage capacity that does not exist yet.",
            "{Closing|Shutting down} working nuclear plants {usually|often} means burning more coal or gas, not building more renewable power.",
            "Uranium is {extremely|incredibly} energy-dense, so a {small|tiny} amount of fuel can power a city for {months|a long time}.",
            "Fear of nuclear {accidents|disasters} is {mostly|largely} driven by a few {famous|well-known} events, not by the actual safety record.",
            "Small modular reactors could be built in factories, which {would|might} bring costs and construction times down.",
            "Climate change is too urgent to rule out any low-carbon {energy source|option}.",
            "Nuclear {power|energy} offers {well-paid|skilled} jobs for decades in the towns that host {plants|reactors}.",
            "A country becomes more independent when it no longer {depends|relies} on imported gas.",
        ),
        con=(
            "New reactors often take {ten|fifteen} years or more to build, {time|years} we do not have {in the climate crisis|given climate change}.",
            "Recent nuclear projects ran {billions|massively} over budget, while solar and wind keep getting cheaper.",
            "Most countries still have no permanent {storage|disposal} site for {high-level waste|spent fuel}, and it stays dangerous for {thousands of years|millennia}.",
            "Chernobyl and Fukushima showed that {a single|one} accident can make {whole|entire} regions {uninhabitable|unlivable} for {decades|generations}.",
            "{Renewable|Renewables} energy combined with {storage|batteries} and smarter grids can meet demand {more cheaply|at lower cost}.",
            "Uranium has to be mined, often in {poor|developing} regions, with {serious|real} {environmental|health} damage.",
            "{Nuclear plants|Reactors} become possible targets in {wars|armed conflicts} or terrorist attacks.",
            "Civilian nuclear {programs|programmes} can help {countries|states} develop weapons {in secret|secretly}.",
            "Reactors need {huge|large} amounts of cooling water, which is becoming a problem during {droughts|heat waves}.",
            "Money spent on a single {nuclear plant|reactor} would buy {far|much} more capacity if invested in {wind turbines|wind} and {solar panels|solar}.",
            "Insurers will not fully cover nuclear {accidents|disasters}, so {taxpayers|the public} carry the risk.",
            "Dismantling old reactors takes decades and {costs|swallows} sums that are {regularly|routinely} underestimated.",
            "{Nuclear|Atomic} power concentrates electricity generation in the hands of a few large companies.",
            "{Local communities|Residents} rarely want waste stored near their homes, and overriding them is {undemocratic|unfair}.",
            "Small modular reactors exist mostly on paper, and betting on them {delays|postpones} proven climate action.",
        ),
        pro_claims=(
            "Nuclear power is low-carbon and reliable",
            "Nuclear energy is safer than fossil fuels",
            "We cannot decarbonise without nuclear",
            "Nuclear waste is a manageable problem",
        ),
        con_claims=(
            "Nuclear power is too slow and too expensive",
            "Nuclear waste remains an unsolved problem",
            "Renewables make new reactors unnecessary",
            "The risks of nuclear accidents are too high",
        ),
        tangential=(
            "The {nuclear arms race|Cold War arms race} shaped how a whole generation thinks about anything nuclear.",
            "Nuclear medicine, such as radiation therapy and {imaging|scans}, helps {many|countless} patients every year.",
            "{Fusion|Nuclear fusion} research keeps promising {limitless|endless} energy, although a working power station is probably decades away.",
            "Electricity prices depend on many {factors|things}, including taxes, grid fees and the price of gas.",
            "Saving energy at home, with {insulation|better insulation} and LED bulbs, is {often|usually} the cheapest way to cut emissions.",
            "Public opinion on {atomic|nuclear} technology shifts quickly after headlines about accidents.",
            "{Submarines|Aircraft carriers} have used compact reactors for decades, which shows the technology can be made small.",
            "Radiation is all around us; we receive low doses from {bananas|rocks|flights} and even from space.",
        ),
        bare_pro=(
            "nuclear is the way to go, period",
            "Build more reactors. Simple as that.",
            "nuclear power is awesome",
        ),
        bare_con=(
            "nuclear is way too dangerous",
            "No nukes!! Never!",
            "nuclear energy is a terrible idea",
        ),
        partner=5,
    ),
    Topic(
        number=3,
        title="Should companies adopt a four-day work week?",
        description=(
            "An employee has read about trials where staff worked four days for the "
            "same pay and wants to know whether a four-day week is a good idea for "
            "workers and businesses."
        ),
        narrative=(
            "Highly relevant arguments take a position on introducing a four-day "
            "(or 32-hour) working week, discussing productivity, wellbeing, costs or "
            "feasibility in different sectors. Relevant arguments discuss working "
            "hours or work-life balance more generally, with some connection to "
            "shorter weeks. Arguments only about remote work, opening hours, or pay "
            "without reference to working time are not relevant."
        ),
        subjects=(
            "the four-day work week",
            "a 4-day week",
            "the 32-hour week",
            "shorter working weeks",
        ),
        debates=(
            ("A four-day work week should become the norm", 1),
            ("The 4-day week would hurt the economy", -1),
            ("Employees should work 32 hours for full pay", 1),
            ("Shorter working weeks are unrealistic", -1),
            ("Companies should trial a four-day week", 1),
        ),
        pro=(
            "Trials in several countries found that {staff|employees|workers} kept their {output|productivity} while working one day less.",
            "An extra {day off|free day} leaves people time for {family|children}, {exercise|sport} and {rest|errands}, which {reduces|cuts} burnout.",
            "{Rested|Well-rested} {employees|workers} make fewer {mistakes|errors} and take fewer sick days.",
            "Offices that close one more day a week use less {energy|heating and electricity}, and commuting drops by around a fifth.",
            "Companies offering a {four-day|4-day} week find it easier to {recruit|attract} and {keep|retain} good staff.",
            "Much of the working day is lost in {pointless|unnecessary} meetings, and a shorter week forces teams to drop them.",
            "The five-day week was once a radical idea too, and it did not ruin the economy.",
            "{Working parents|Couples with children} could share childcare more {fairly|evenly} if both worked four days.",
            "{Productivity|Output per hour} has grown {enormously|a lot} since the 1950s, but working hours have barely moved.",
            "{Automation|Technology} lets us produce the same in fewer hours, so the gains should be passed on to {workers|employees}.",
            "{Shops|Services} and {hospitals|clinics} can rotate {shifts|schedules} so that customers are served all week while each person works four days.",
            "People with a three-day weekend would spend more {money|time} in local businesses, which boosts the economy.",
            "Long working hours are linked to {heart disease|health problems} and {depression|burnout}, so cutting them is a public health {measure|issue}.",
            "Most {workers|employees} in the trials said they would not go back to five days even for a raise.",
        ),
        con=(
            "{Hospitals|Factories|Shops} cannot simply close for an extra day, so they would have to hire more staff at {great|a higher} cost.",
            "{Cramming|Squeezing} forty hours into four long days leads to {exhaustion|fatigue}, not better health.",
            "{Small|Smaller} businesses run on {thin|tight} margins and cannot afford to pay five days' {wages|salary} for four days of work.",
            "The trials were mostly run with {volunteer|self-selected} {companies|firms} in office work, so the results do not {generalise|apply everywhere}.",
            "Customers expect service at least five days a week, and rivals would gladly take that business.",
            "{Productivity|Output} gains in the first months may fade once the {novelty|excitement} wears off.",
            "A {legally required|government-imposed} four-day week could push {employers|companies} to move jobs to countries with normal hours.",
            "Some {workers|employees} would simply take a second job on the free day, and the {health|wellbeing} benefits would vanish.",
            "Flexible schedules already give people more control without forcing one rigid model on everyone.",
            "{Teachers|Nurses|Farmers} and many other professions could not realistically {compress|squeeze} their workload into four days.",
            "Deadlines do not move just because the office is closed on Fridays, so {stress|pressure} simply shifts to the other days.",
            "If pay were cut along with hours, {low-income|poorer} families could no longer afford their {rent|bills}.",
            "Working with partners in other {companies|time zones} gets harder when everyone works on different days.",
            "{Economic|National} output could shrink if everyone worked a fifth fewer days.",
        ),
        pro_claims=(
            "A four-day week boosts productivity",
            "Shorter weeks improve wellbeing",
            "The 32-hour week is the next step for workers",
        ),
        con_claims=(
            "A four-day week is impossible for many sectors",
            "Shorter weeks would raise costs for businesses",
            "The trial results are overstated",
        ),
        tangential=(
            "Remote {working|office work} changed how many people organise their {week|days} after {2020|the pandemic}.",
            "Unpaid overtime is {common|widespread} in some {industries|sectors}, yet it seldom shows up in official statistics.",
            "Saturday {work|shifts} used to be {normal|standard} in {retail|factories} for a long time.",
            "Work-life balance means something different to a student, a parent and a retiree.",
            "A few countries have lower average working hours simply because part-time jobs are popular there.",
            "{Trade unions|Unions} campaigned for the eight-hour day more than a hundred years ago.",
            "Meeting and email overload is a {huge|big} complaint in {modern|today's} workplaces.",
        ),
        bare_pro=(
            "four day week = best idea ever",
            "I want Fridays off, who doesn't?",
            "yes to the 4 day week obviously",
        ),
        bare_con=(
            "people are lazy enough already",
            "4 day week? dream on.",
            "work is work, five days is fine",
        ),
        partner=6,
    ),
    Topic(
        number=4,
        title="Should homework be banned?",
        description=(
            "A parent whose child spends hours on homework every evening wonders "
            "whether schools should abolish homework altogether."
        ),
        narrative=(
            "Highly relevant arguments take a position on banning or abolishing "
            "homework in primary or secondary school, discussing learning outcomes, "
            "stress, family time or equality. Relevant arguments discuss homework "
            "in general (amount, kind) without a position on a ban. Arguments about "
            "other school policies (uniforms, lunches, phones) or about banning "
            "other things are not relevant."
        ),
        subjects=("homework", "banning homework", "a homework ban", "abolishing homework"),
        debates=(
            ("Homework should be banned", 1),
            ("Homework is necessary for learning", -1),
            ("Schools should abolish homework in primary school", 1),
            ("Banning homework would hurt students", -1),
            ("Homework does more harm than good", 1),
        ),
        pro=(
            "Studies find {little|almost no} benefit from homework for {primary|young|elementary} {pupils|children}.",
            "Hours of {homework|assignments} every evening leave {kids|children} {no|little} time for {play|sport|friends}.",
            "{Students|Pupils} from {wealthier|richer} homes get help from parents or tutors, so homework widens the gap.",
            "Homework is a {major|leading} {source|cause} of {stress|anxiety} and {sleep deprivation|lack of sleep} among {teenagers|teens}.",
            "Teachers spend evenings {marking|grading} worksheets instead of planning better lessons.",
            "Evening {arguments|fights} over unfinished homework damage the relationship between parents and {children|kids}.",
            "Learning should happen {in school|during school hours}, where a trained teacher can help {immediately|directly}.",
            "{Finland|Some countries with strong results} assign {very little|hardly any} homework and still do well in international {comparisons|rankings}.",
            "Copying homework has become {trivial|easy} {with|thanks to} {apps|chatbots|the internet}, so it hardly measures anything anymore.",
            "{Banning|Abolishing|Scrapping} homework would let {children|kids} pursue {hobbies|music|sports} that develop other {skills|abilities}.",
            "{Kids|Children} who dread {homework|assignments} soon begin to dislike {learning|school} altogether.",
            "{Pupils|Students} in {poorer|crowded} households may lack a quiet place to work, so homework {punishes|penalises} them.",
            "{Assignments|Homework} given over {weekends|holidays} take away the break that everyone needs.",
        ),
        con=(
            "{Practice|Practising} at home helps {students|pupils} {remember|retain} what they learned in class.",
            "Homework {teaches|builds} {self-discipline|discipline} and time management, skills needed in adult life.",
            "{Older|Secondary school} {students|pupils} show {clear|measurable} gains from {moderate|reasonable} amounts of home study.",
            "{Parents|Families} see what their {children|kids} are {learning|studying} when assignments come home.",
            "A complete ban would be an overreaction; the real problem lies in badly designed {assignments|tasks}.",
            "Reading at home {every day|each evening} is homework too, and nobody {seriously|really} thinks children should stop.",
            "Lesson time is too short to practise everything, {especially|particularly} in {maths|mathematics} and languages.",
            "{Students|Pupils} who never do homework struggle at university, where {independent|self-directed} study is expected.",
            "Schools could make {homework|assignments} {optional|shorter} or {project-based|creative} instead of {banning|abolishing} it.",
            "Without homework, many {students|kids} would just spend more hours on {screens|phones} and {video games|games}.",
            "Home practice gives {slower|struggling} {learners|students} extra time to work through {problems|material} at their own pace.",
            "If homework were banned, {students|pupils} would be {unprepared|left behind} for exams that still require revision.",
            "Completing tasks alone builds the confidence that you can {solve|tackle} problems without help.",
        ),
        pro_claims=(
            "Homework should be abolished",
            "Homework causes stress without benefits",
            "Homework increases inequality",
        ),
        con_claims=(
            "Homework helps students learn",
            "Homework builds discipline",
            "Fix homework instead of banning it",
        ),
        tangential=(
            "{Private|Paid} tutoring has become a {huge|booming} industry in many countries.",
            "In some countries the school day ends at lunchtime, while elsewhere it runs until late afternoon.",
            "Grading policies vary widely between {schools|teachers}, which {confuses|frustrates} parents.",
            "{Educational|Learning} apps promise to make studying fun, but many are just quizzes in disguise.",
            "Enough sleep is crucial for {teenagers|adolescents}, and some districts have pushed school start times later.",
            "Many parents remember their own homework {fondly|with horror}, which shapes how they view the topic today.",
            "Exams put pressure on students regardless of how much homework they get.",
        ),
        bare_pro=("homework sucks, ban it", "No more homework!!!", "ban homework pls"),
        bare_con=(
            "homework is fine stop complaining",
            "Just do your homework.",
            "homework never hurt anyone",
        ),
        partner=1,
    ),
    Topic(
        number=5,
        title="Should zoos be abolished?",
        description=(
            "After a visit to a zoo, a user wonders whether keeping wild animals in "
            "zoos can be justified, or whether zoos should be closed."
        ),
        narrative=(
            "Highly relevant arguments take a position on whether zoos, or keeping "
            "wild animals in captivity for display, should be abolished or kept, "
            "discussing animal welfare, conservation, breeding, research or "
            "education. Relevant arguments discuss zoos or captive animals without "
            "a clear position on abolition. Arguments about pets, farming or "
            "wildlife in general are not relevant."
        ),
        subjects=("zoos", "keeping animals in zoos", "zoo animals", "abolishing zoos"),
        debates=(
            ("Zoos should be closed", 1),
            ("Zoos are essential for conservation", -1),
            ("Keeping wild animals in captivity is cruel", 1),
            ("Modern zoos do more good than harm", -1),
            ("Zoos should be abolished", 1),
        ),
        pro=(
            "Even the largest enclosure is tiny compared with the territory {an elephant|a tiger|a polar bear} roams in the wild.",
            "Many {captive|caged} animals show repetitive behaviour such as {pacing|swaying|bar-biting}, a clear sign of {distress|stress}.",
            "Most species kept in zoos are not endangered at all; they are displayed because visitors enjoy seeing them.",
            "Captive breeding {programmes|programs} rarely return animals to the wild, so they mostly breed more zoo animals.",
            "Staring at a {bored|sleepy} animal behind {glass|bars} teaches children {very little|almost nothing} about how it really lives.",
            "{Documentaries|Nature films} and virtual reality can show wildlife far better than a {cage|pen}.",
            "{Zoos|Zoological parks} are commercial attractions above all, and ticket sales often come before animal welfare.",
            "Money spent on zoo buildings could save far more animals if invested in wild habitats and {anti-poaching|ranger} patrols.",
            "Wild animals have interests of their own, and keeping them locked up for our {entertainment|amusement} ignores that.",
            "{Orcas|Elephants|Great apes} in captivity often live shorter lives than their wild relatives.",
            "{Sanctuaries|Animal sanctuaries} could care for animals that cannot be released, without breeding new ones for {crowds|the public}.",
            "Moving animals between zoos causes {stress|fear} and breaks up {family|social} groups.",
            "Phasing out zoos {gradually|slowly} would not hurt conservation, because real conservation happens in the wild.",
        ),
        con=(
            "Some species, like the {Arabian oryx|California condor}, would be extinct without captive breeding.",
            "{Accredited|Modern} zoos fund {field|wildlife} research projects {around the world|worldwide}.",
            "Meeting a living animal inspires {children|kids} to care about {nature|wildlife} far more than a screen ever could.",
            "Zoo {vets|veterinarians} gain knowledge that later benefits {wild|free-living} populations.",
            "{Closing|Abolishing} zoos would leave thousands of animals that cannot survive in the wild {with nowhere to go|without a home}.",
            "Good zoos use {large|spacious} enclosures and enrichment {programmes|activities} to keep animals {active|busy}.",
            "Wild habitats are shrinking {fast|quickly}, so zoo populations act as a {backup|safety net} for {endangered|threatened} species.",
            "Bad zoos should be {closed|regulated}, but that is a case for stricter standards, not for {abolishing|banning} all zoos.",
            "Ticket money from millions of {visitors|guests} pays for conservation work that governments will not fund.",
            "Most zoo animals today were born in captivity and have never known life in the wild.",
            "In the wild, animals {face|suffer} hunger, disease and {predators|poachers}, so a zoo is not necessarily worse.",
            "Zoos give {urban|city} families an affordable way to experience biodiversity.",
            "Scientists study zoo animals to learn about behaviour and reproduction in ways that would be hard in the field.",
        ),
        pro_claims=(
            "Zoos are cruel to animals",
            "Captivity harms wild animals",
            "Zoos are about profit, not conservation",
        ),
        con_claims=(
            "Zoos protect endangered species",
            "Zoos educate the public",
            "Good zoos should stay open",
        ),
        tangential=(
            "Public aquariums face many of the same questions, especially when it comes to {dolphins|whales}.",
            "Travelling circuses with {wild|exotic} animals have been banned in a number of countries.",
            "Safari tourism brings income to rural communities in parts of Africa and Asia.",
            "{Poaching|Illegal hunting} is still the biggest threat to {rhinos|elephants} today.",
            "The earliest menageries were royal collections meant to display {power|wealth}.",
            "Animal welfare laws vary enormously from one country to another.",
            "Petting farms with goats and {rabbits|chickens} are quite different from keeping big cats.",
        ),
        bare_pro=("zoos are animal prisons", "free the animals!!", "zoos are sad, close them"),
        bare_con=(
            "I love zoos and so do my kids",
            "Zoos are fun, leave them alone.",
            "zoos are fine honestly",
        ),
        partner=2,
    ),
    Topic(
        number=6,
        title="Should governments introduce a universal basic income?",
        description=(
            "A user has heard about pilot projects that pay every citizen a fixed "
            "monthly amount and wants to know whether a universal basic income is a "
            "good policy."
        ),
        narrative=(
            "Highly relevant arguments take a position on an unconditional basic "
            "income paid to everyone, discussing affordability, work incentives, "
            "poverty, automation or bureaucracy. Relevant arguments discuss related "
            "welfare ideas (negative income tax, targeted cash transfers) in "
            "relation to a basic income. Arguments about minimum wages, taxes or "
            "salaries without connection to a basic income are not relevant."
        ),
        subjects=(
            "universal basic income",
            "a basic income",
            "UBI",
            "an unconditional basic income",
        ),
        debates=(
            ("A universal basic income should be introduced", 1),
            ("UBI is unaffordable", -1),
            ("Every citizen deserves a guaranteed basic income", 1),
            ("Basic income would discourage work", -1),
            ("Basic income is the answer to automation", 1),
        ),
        pro=(
            "A {basic income|UBI} could replace {dozens of|many} {complicated|confusing} welfare schemes with one simple payment.",
            "Pilot projects in {Finland|Kenya|several countries} found that recipients did not quit working and reported better {wellbeing|health}.",
            "{Automation|Robots and AI} will likely eliminate {many|millions of} jobs, and a guaranteed income offers a {safety net|floor} for everyone.",
            "Since every citizen receives it, a universal payment carries none of the {stigma|shame} attached to means-tested benefits.",
            "Unpaid work such as caring for {children|relatives} or {volunteering|community work} would finally receive some recognition.",
            "{Guaranteed|Unconditional} payments give people the {power|freedom} to leave {exploitative|abusive} employers.",
            "Means-tested benefits create poverty traps in which earning more leads to losing support.",
            "A basic income would let {people|young people} {retrain|study}, start a business or take risks they cannot afford today.",
            "{Administrative|Bureaucratic} costs fall {sharply|dramatically} when nobody has to check who qualifies.",
            "{Poverty|Financial insecurity} damages health and {education|learning}, which costs society far more in the long run.",
            "Cash paid straight to households is {mostly|largely} spent on {food|rent|essentials}, not wasted.",
            "Funding a {UBI|basic income} through {carbon|wealth} taxes could reduce inequality at the same time.",
        ),
        con=(
            "Paying every adult a {livable|meaningful} amount would cost an enormous share of the national budget.",
            "Sending cash to millionaires too seems {wasteful|pointless} when that money should go to people in need.",
            "Many recipients might work fewer hours, shrinking the tax base needed to pay for the scheme.",
            "Pilot projects were small and time-limited, so they tell us little about how people behave under a permanent {UBI|scheme}.",
            "Landlords and shops could simply raise prices, so the extra {money|cash} would vanish into {inflation|higher rents}.",
            "A flat payment overlooks the fact that {disabled|sick} citizens face far higher costs than others.",
            "Having a job provides {structure|routine}, {purpose|meaning} and social contact, which a payment alone cannot replace.",
            "Targeted benefits help the poorest more for every {euro|dollar} spent than a universal scheme.",
            "Raising income taxes enough to fund a {UBI|basic income} could push businesses and high earners abroad.",
            "Many taxpayers would not accept handing money to adults who choose not to work at all.",
            "Technology has always created new jobs as it destroyed old ones, so the automation argument for UBI is {overblown|exaggerated}.",
            "Migration policy would get much harder if every new resident became entitled to an unconditional income.",
        ),
        pro_claims=(
            "A basic income would end poverty traps",
            "UBI is the answer to automation",
            "Unconditional income gives people freedom",
        ),
        con_claims=(
            "Universal basic income is too expensive",
            "UBI would reduce the incentive to work",
            "Targeted welfare works better than UBI",
        ),
        tangential=(
            "The minimum wage debate is {closely|loosely} linked to the question of what people need to get by.",
            "A negative income tax, proposed decades ago, works in a similar way but only tops up people below a certain income.",
            "{Child|Family} benefits in several European countries are paid for every child regardless of family income.",
            "The state of Alaska has paid every resident an annual oil dividend for decades.",
            "State pension schemes are under {pressure|strain} because societies are growing older.",
            "{Crypto|Cryptocurrency} enthusiasts often claim their tokens could deliver a basic income, but hardly any such project has worked.",
            "Wealth inequality has grown in many rich countries since the 1980s.",
        ),
        bare_pro=(
            "free money for everyone, what's not to like",
            "UBI now!!!",
            "basic income is just fair",
        ),
        bare_con=(
            "UBI is communism",
            "Nobody would work anymore lol",
            "basic income is a silly fantasy",
        ),
        partner=3,
    ),
)
