package gen

// The hand-written "language" of GenerateAds. Every name is fictional.

type company struct {
	name    string
	sector  int // index into sectors
	footers []string
}

type sector struct {
	noun   string   // "logistics company"
	team   string   // "warehouse"
	titles []string // job titles
	duties []string // verb phrases: "pick and pack customer orders"
	skills []string // noun phrases: "forklift operation"
}

var sectors = []sector{
	{ // 0
		noun: "logistics company", team: "warehouse",
		titles: []string{"Warehouse Operative", "Forklift Driver", "Delivery Driver", "Transport Planner", "Shift Supervisor", "Stock Controller", "HGV Class 2 Driver", "Goods In Assistant"},
		duties: []string{"pick and pack customer orders", "load and unload vehicles", "plan daily delivery routes", "keep accurate stock records", "carry out vehicle safety checks", "deliver parcels to homes and businesses", "check incoming goods against delivery notes", "keep the warehouse clean and safe"},
		skills: []string{"forklift operation", "stock control systems", "route planning", "manual handling", "warehouse management software", "tachograph rules"},
	},
	{ // 1
		noun: "care provider", team: "care",
		titles: []string{"Care Assistant", "Senior Carer", "Registered Nurse", "Night Care Worker", "Support Worker", "Care Home Manager", "Healthcare Assistant", "Domiciliary Carer"},
		duties: []string{"support residents with personal care", "give medication safely", "write clear care notes", "help people to live independently", "plan activities with residents", "work closely with families and GPs", "lead a small team of carers", "visit clients in their own homes"},
		skills: []string{"personal care", "medication administration", "dementia care", "care planning", "safeguarding", "the Care Certificate"},
	},
	{ // 2
		noun: "software house", team: "engineering",
		titles: []string{"Software Engineer", "Senior Software Engineer", "Frontend Developer", "Data Analyst", "DevOps Engineer", "QA Tester", "IT Support Technician", "Product Manager"},
		duties: []string{"design and build new features", "write clean, tested code", "review pull requests", "look after our cloud infrastructure", "fix bugs reported by customers", "work with designers on the user interface", "analyse data and build dashboards", "support staff with hardware and software problems"},
		skills: []string{"Go", "Python", "JavaScript", "SQL databases", "Linux", "continuous integration", "cloud platforms", "REST APIs"},
	},
	{ // 3
		noun: "hotel group", team: "front of house",
		titles: []string{"Chef de Partie", "Sous Chef", "Kitchen Porter", "Receptionist", "Housekeeper", "Bar Staff", "Restaurant Manager", "Waiting Staff"},
		duties: []string{"prepare fresh food to a high standard", "greet guests and handle bookings", "clean and prepare guest rooms", "serve food and drinks", "keep the kitchen clean and tidy", "manage stock and orders", "train new members of the team", "deal with guest complaints politely"},
		skills: []string{"food hygiene", "customer service", "fresh food preparation", "till handling", "booking systems", "cocktail making"},
	},
	{ // 4
		noun: "retailer", team: "store",
		titles: []string{"Sales Assistant", "Store Manager", "Assistant Manager", "Cashier", "Visual Merchandiser", "Customer Service Advisor", "Shelf Stacker", "Department Supervisor"},
		duties: []string{"serve customers at the till", "keep shelves stocked and tidy", "hit weekly sales targets", "handle returns and refunds", "open and close the store", "set up window displays", "answer customer calls and emails", "count cash at the end of the day"},
		skills: []string{"retail sales", "cash handling", "visual merchandising", "customer service", "stock rotation", "people management"},
	},
	{ // 5
		noun: "construction firm", team: "site",
		titles: []string{"Site Manager", "Electrician", "Plumber", "Quantity Surveyor", "Labourer", "Bricklayer", "Site Engineer", "Maintenance Technician"},
		duties: []string{"manage subcontractors on site", "install and test electrical systems", "fit heating and plumbing", "price jobs and control costs", "keep the site safe and tidy", "read drawings and set out works", "carry out planned maintenance", "report progress to the project manager"},
		skills: []string{"a CSCS card", "the 18th Edition wiring regulations", "gas safety", "cost control", "health and safety", "AutoCAD"},
	},
	{ // 6
		noun: "finance firm", team: "finance",
		titles: []string{"Accounts Assistant", "Payroll Administrator", "Management Accountant", "Credit Controller", "Financial Adviser", "Bookkeeper", "Finance Manager", "Audit Senior"},
		duties: []string{"process supplier invoices", "run the monthly payroll", "prepare management accounts", "chase overdue payments", "reconcile bank accounts", "advise clients on pensions and savings", "prepare VAT returns", "support the year end audit"},
		skills: []string{"Sage", "Xero", "Excel", "purchase ledger", "payroll software", "an AAT qualification"},
	},
	{ // 7
		noun: "school trust", team: "teaching",
		titles: []string{"Teaching Assistant", "Primary Teacher", "Maths Teacher", "Science Teacher", "School Administrator", "SEN Coordinator", "Cover Supervisor", "Nursery Practitioner"},
		duties: []string{"plan and deliver engaging lessons", "support pupils with special needs", "mark work and give feedback", "supervise classes when teachers are absent", "keep pupil records up to date", "work with parents and carers", "run small group interventions", "help with school trips and events"},
		skills: []string{"the national curriculum", "behaviour management", "safeguarding", "phonics", "special educational needs", "QTS"},
	},
}

var companies = []company{
	{"Harbourline Logistics", 0, []string{
		"Harbourline Logistics moves goods for more than four hundred businesses from six depots across the region. We are an equal opportunities employer and welcome applications from all sections of the community. All offers are subject to a basic criminal record check and proof of the right to work.",
		"About us: Harbourline Logistics has been delivering for local businesses since 1987. We value safety, reliability and our people. Harbourline is an equal opportunities employer.",
	}},
	{"Brightwater Care Group", 1, []string{
		"Brightwater Care Group runs twelve care homes and a home care service. Every post is subject to an enhanced DBS check and two satisfactory references. We are proud to be rated good or outstanding in every home, and we support every carer to gain a recognised qualification.",
	}},
	{"Kestrel Software", 2, []string{
		"Kestrel Software builds scheduling tools used by hospitals, airlines and schools. We are a remote first company with offices in Whitcliffe and Kingsmere. We believe diverse teams build better software and we encourage people from under represented groups to apply. No agencies please.",
		"Kestrel Software is an equal opportunity employer. We do not accept unsolicited CVs from recruitment agencies.",
	}},
	{"Oakmere Hotels", 3, []string{
		"Oakmere Hotels is a family owned group of eight country hotels. Our people enjoy free meals on duty, discounted stays for friends and family and real chances to grow their careers. Live in accommodation may be available for the right candidate.",
	}},
	{"Fenwick & Hale", 4, []string{
		"Fenwick & Hale has been a much loved department store since 1902. Colleagues enjoy a generous staff discount, a share of the annual profit and a company pension. We welcome applications from everyone and will make reasonable adjustments at interview.",
	}},
	{"Northgate Build", 5, []string{
		"Northgate Build is a main contractor working on schools, homes and hospitals across the north. Safety comes first on every one of our sites. We offer a company van, fuel card and paid training towards recognised qualifications. Northgate Build is an equal opportunities employer.",
	}},
	{"Sterling Vale", 6, []string{
		"Sterling Vale is an independent firm of accountants and financial advisers. We are authorised and regulated by the Financial Conduct Authority. We support study towards professional qualifications and offer hybrid working after probation.",
	}},
	{"Millbrook Academy Trust", 7, []string{
		"Millbrook Academy Trust is a family of nine primary and secondary schools. We are committed to safeguarding and promoting the welfare of children and expect all staff to share this commitment. This post is subject to an enhanced DBS check, online searches and satisfactory references.",
	}},
	{"Copperleaf Foods", 4, []string{
		"Copperleaf Foods runs farm shops and cafés in market towns. We buy from local growers and bake fresh every morning. Colleagues receive a free lunch every shift and thirty percent off in all our shops.",
	}},
	{"Café Lumière", 3, []string{
		"Café Lumière is a small French bakery and café with three sites. We are a friendly, independent team and we pay the real living wage. Please note that we can only reply to successful applicants.",
	}},
	{"Greyfriars Engineering", 5, []string{
		"Greyfriars Engineering designs and maintains building services for commercial clients. We are accredited by the relevant trade bodies and invest heavily in apprenticeships. Greyfriars is a disability confident employer.",
	}},
	{"Ashcombe Recruitment", -1, []string{
		"Ashcombe Recruitment is acting as an employment agency in relation to this vacancy. By applying you agree to our privacy notice, which explains how we hold your data. If you have not heard from us within five working days, please assume that you have not been successful on this occasion.",
		"Ashcombe Recruitment is an equal opportunities agency. We will contact you if your skills match this or other vacancies. Register with us today for the latest local jobs.",
	}},
}

var towns = []string{
	"Ashford Vale", "Bramley Cross", "Dunmore", "Eastwick", "Fallowfield", "Greyhaven", "Holtby", "Kingsmere",
	"Larkhill", "Marlow Heath", "Netherby", "Oldcastle", "Pembury", "Queensbridge", "Redbourne", "Saltmarsh",
	"Thornbury", "Upwood", "Westerleigh", "Yarrowby", "Zennor Bay", "Castlemoor", "Brackenfield", "Elmstead",
	"Whitcliffe", "Stonebridge", "Lowestry", "Coldharbour", "Skelwith", "Ravensworth",
}

var (
	adIntros = []string{
		"{co} is looking for a {adj} {title} to join our {team} team in {town}.",
		"We are recruiting a {title} for our busy {town} site.",
		"An exciting opportunity has arisen for a {adj} {title} based in {town}.",
		"Our client, a {adj2} {noun} in {town}, needs a {title} to start as soon as possible.",
		"Join {co} as a {title} in {town} and be part of a team that really cares.",
		"{co} in {town} has a vacancy for a {contract} {title}.",
		"Are you a {adj} {title} looking for your next challenge? We want to hear from you.",
		"We have a new opening for a {title} at our {town} branch.",
	}
	adDuties = []string{
		"In this role you will {duty}, {duty} and {duty}.",
		"Day to day you will {duty} and {duty}.",
		"Your main responsibilities will be to {duty}, to {duty} and to {duty}.",
		"You will {duty}. You will also {duty}.",
		"Key duties include the need to {duty} and {duty}.",
	}
	adReqs = []string{
		"You will have at least {years} years of experience with {skill} and a good knowledge of {skill}.",
		"The ideal candidate has {quality} and some experience of {skill}.",
		"Experience of {skill} is essential and {skill} would be an advantage.",
		"No experience is needed as full training will be given, but you must have {quality}.",
		"We are looking for someone with {quality}, {quality} and a background in {skill}.",
	}
	adQualities = []string{
		"a positive attitude", "excellent communication skills", "strong attention to detail", "a full driving licence",
		"a flexible approach to work", "good IT skills", "the ability to work under pressure", "a friendly manner",
		"good time keeping", "the right to work in the UK",
	}
	adOffers = []string{
		"We offer {perk}, {perk} and {perk}.",
		"In return you will receive {perk} and {perk}.",
		"Benefits include {perk}, {perk}, {perk} and {perk}.",
		"You will enjoy {perk} and {perk}.",
	}
	adPerks = []string{
		"28 days holiday", "a company pension", "free parking", "overtime at time and a half", "a cycle to work scheme",
		"private healthcare", "a staff discount", "flexible hours", "paid training", "a generous bonus scheme",
		"free uniform", "an employee assistance programme", "life assurance", "a refer a friend bonus",
	}
	adPays = []string{
		"The salary is £{lo},000 to £{hi},000 per year.",
		"Pay is £{rate} per hour.",
		"Salary: up to £{hi}k depending on experience.",
		"We pay £{rate} an hour, rising after probation.",
		"Competitive salary.",
	}
	adHours = []string{
		"This is a {contract} position, {hours}.",
		"Hours: {hours}.",
		"The role is {contract}, working {hours}.",
	}
	adContracts = []string{"permanent", "temporary", "fixed term", "part time", "full time", "temp to perm"}
	adHoursList = []string{
		"Monday to Friday, 8am to 5pm", "37.5 hours per week", "rotating shifts including weekends",
		"nights, four on four off", "term time only", "16 to 24 hours per week", "days, with some evenings",
	}
	adApplies = []string{
		"To apply, send your CV to {email}.",
		"Click apply now!",
		"Apply today quoting reference {ref}.",
		"Closing date: {day} {month}.",
		"Interviews will be held on {day} {month}.",
		"For an informal chat call {phone}.",
	}
	adAdjs   = []string{"motivated", "experienced", "friendly", "reliable", "hard working", "enthusiastic", "skilled", "confident"}
	adAdjs2  = []string{"growing", "well established", "award winning", "leading", "family run", "busy", "forward thinking"}
	adMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	adShorts = []string{
		"{title} wanted in {town}. Call {phone}.",
		"{title} needed ASAP.",
		"See title.",
		"Immediate start, {town}.",
		"{title}, {contract}, £{rate} per hour.",
		"Cash in hand, no experience needed.",
	}
	adTitleExtras = []string{" - Immediate Start", " (Reposted)", " - {town}", " - Urgent", " - Nights", " - £{rate}ph"}
	adSeniority   = []string{"Senior ", "Junior ", "Trainee ", "Lead ", "Assistant "}
	// adFillers are the words that edits substitute and insert.
	adFillers = []string{"and", "the", "new", "great", "our", "local", "friendly", "busy", "very", "team", "role", "now", "also", "key", "good", "full", "all", "your"}
)
