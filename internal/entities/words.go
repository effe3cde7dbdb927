package entities

import "strings"

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// firstNames are about 500 common first names, lower case: written by hand (no name data set is
// on these machines) after the most frequent US given names of the last century, with common
// short forms and a few frequent names of other languages.
var firstNames = wordSet(`
james john robert michael william david richard joseph thomas charles christopher daniel matthew
anthony mark donald steven paul andrew joshua kenneth kevin brian george timothy ronald edward jason
jeffrey ryan jacob gary nicholas eric jonathan stephen larry justin scott brandon benjamin samuel
gregory alexander frank patrick raymond jack dennis jerry tyler aaron jose adam nathan henry douglas
zachary peter kyle ethan walter noah jeremy christian keith roger terry gerald harold sean austin
carl arthur lawrence dylan jesse jordan bryan billy joe bruce gabriel logan albert willie alan juan
wayne elijah randy roy vincent ralph eugene russell bobby mason philip louis harry howard fred
liam oliver lucas aiden jackson sebastian mateo owen luke isaac caleb julian levi hunter connor
carter wyatt jayden grayson leo lincoln ezra thomas hudson colton nolan dominic adrian evan ian
cooper jaxon xavier easton josiah carson landon cameron robert angel miles jace micah axel luis
mary patricia jennifer linda elizabeth barbara susan jessica sarah karen lisa nancy betty margaret
sandra ashley kimberly emily donna michelle carol amanda dorothy melissa deborah stephanie rebecca
sharon laura cynthia kathleen amy angela shirley anna brenda pamela emma nicole helen samantha
katherine christine debra rachel carolyn janet catherine maria heather diane ruth julie olivia
joyce virginia victoria kelly lauren christina joan evelyn judith megan andrea cheryl hannah jacqueline
martha gloria teresa ann sara madison frances kathryn janice jean abigail alice judy sophia grace
denise amber doris marilyn danielle beverly isabella theresa diana natalie brittany charlotte marie
kayla alexis lori ava mia amelia harper ella avery scarlett chloe layla riley zoey nora lily
eleanor hazel violet aurora savannah audrey brooklyn bella claire skylar lucy paisley everly
caroline genesis emilia kennedy aaliyah allison gabriella alyssa sadie anastasia naomi ellie
stella ruby jill jane joanne jenny jen jim jimmy tom tommy mike mikey bob bill will dave dan
danny chris matt tony steve andy josh ken kenny greg alex sam ben nick nate pete zach rick
ricky rob bobby ted teddy tim ron ronnie liz beth betsy kate katie kathy cathy sue susie pat
patty debbie deb becky becca jessie jess ally ali abby maggie meg peggy sally molly polly
holly ivy rose daisy iris jasmine june april may summer autumn dawn faith hope joy mercy
frank grant chase dean drew gene guy jay ray rex max miles wade lane clay dale earl glenn
carmen rosa ana sofia isabel camila valentina lucia gabriela fernanda daniela mariana paula
juan carlos miguel jorge pedro manuel francisco antonio javier diego alejandro fernando ricardo
mohammed muhammad ahmed ali omar hassan fatima aisha wei li ming yan hiroshi yuki kenji
priya raj rahul amit sanjay anil sunil deepak ravi neha pooja anjali
hans klaus jurgen pierre jacques francois marco giovanni luca giuseppe sven lars erik olaf
ivan dmitri sergei olga natasha tatiana irina
josephine louise florence edith mildred ethel lillian gladys ida agnes bertha vera ellen
harriet norma lois phyllis marjorie irene wanda bonnie peggy connie tammy tina wendy dana
leslie erin tara sheila monica vanessa erica kristen kristin heidi jodie jody shannon colleen
bridget fiona siobhan maeve aoife sean liam conor declan niall eoin ciaran
`)

// ambiguousNames are first names that are also ordinary English words: taken as names only when
// capitalised in mid-sentence or after a cue ("my name is Grace").
var ambiguousNames = wordSet(`
will bill mark may june april summer autumn dawn faith hope joy mercy grace rose daisy iris
ivy holly ruby amber hazel violet lily jasmine angel frank grant chase dean drew gene guy jay
ray rex max miles wade lane clay dale earl glenn sue pat peggy patty art rob ted tom jack
joe jim ken sam ben nick pete dan jean harry carol christian august sky aurora genesis
savannah brooklyn virginia kennedy carter hunter cooper mason logan jordan austin lincoln
hudson easton landon carson paisley harper avery riley skylar scarlett bobby sean olive
gloria ali li wei ming yan deb jess ally abby meg sally molly polly norma vera ida lois
bonnie connie tammy tina dana leslie erin tara monica shannon bridget priya joy
`)

// surnames are about 270 common family names, lower case: written by hand after the most
// frequent US census surnames, with some frequent Chinese, Indian, German, Italian and Irish ones.
var surnames = wordSet(`
smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez lopez gonzalez
wilson anderson thomas taylor moore jackson martin lee perez thompson white harris sanchez clark
ramirez lewis robinson walker young allen king wright scott torres nguyen hill flores green adams
nelson baker hall rivera campbell mitchell carter roberts gomez phillips evans turner diaz parker
cruz edwards collins reyes stewart morris morales murphy cook rogers gutierrez ortiz morgan cooper
peterson bailey reed kelly howard ramos kim cox ward richardson watson brooks chavez wood james
bennett gray mendoza ruiz hughes price alvarez castillo sanders patel myers long ross foster
jimenez powell jenkins perry russell sullivan bell coleman butler henderson barnes gonzales fisher
vasquez simmons romero jordan patterson alexander hamilton graham reynolds griffin wallace west
cole hayes bryant herrera gibson ellis tran medina aguilar stevens murray ford castro marshall
owens harrison fernandez mcdonald woods washington kennedy wells vargas henry chen freeman webb
tucker guzman burns crawford olson simpson porter hunter gordon mendez silva shaw snyder mason
dixon munoz hunt hicks holmes palmer wagner black robertson boyd rose stone salazar fox warren
mills meyer rice schmidt garza daniels ferguson nichols stephens soto weaver ryan gardner payne
grant dunn kelley spencer hawkins arnold pierce vazquez hansen peters santos hart bradley knight
elliott cunningham duncan armstrong hudson carroll lane riley andrews alvarado ray delgado berry
perkins hoffman johnston matthews pena richards willis carpenter lawrence sandoval wang zhang liu
chen yang huang zhao wu zhou xu sun ma zhu hu guo he lin singh kumar sharma gupta khan ali
mueller schneider fischer weber becker rossi russo ferrari esposito bianchi dubois martin bernard
obrien o'brien oconnor o'connor murphy kelly walsh byrne
`)

// notSurname are capitalised words that follow a first name without being a family name.
var notSurname = wordSet(`
i the a an and or but so if then than that this these those is are was were be been am do does did
have has had will would can could should may might must shall it its he she they we you me him her
them my your his our their who what when where why how yes no not please thanks thank okay ok hello
hi hey bye goodbye mr mrs ms dr monday tuesday wednesday thursday friday saturday sunday january
february march april june july august september october november december
`)

// veryOffensive and lessOffensive are short lists of strongly and mildly offensive English words
// (very_offensive_language and less_offensive_language).
var veryOffensive = wordSet(`
fuck fucks fucked fucker fuckers fucking motherfucker motherfuckers cunt cunts cocksucker
cocksuckers wanker wankers twat twats
`)

var lessOffensive = wordSet(`
shit shits shitty bullshit crap crappy damn damned dammit goddamn bitch bitches bastard bastards
ass asshole assholes arse arsehole piss pissed douche douchebag jackass prick pricks bollocks
`)
