package retrieval

import "strings"

// Stop words are the words that say nothing about what a visitor asks:
// function words, and the politeness and filler of chat messages ("hello,
// I would like to know…"). Dropping them keeps a long, polite question from
// looking less certain than a terse one. The lists are written folded (no
// diacritics, ё as е), as the tokens they are compared with.
var stopWords = map[string]map[string]bool{
	"en": wordSet(`
		a about above after again all also am an and any are as at be because been
		before being below between both but by can cant could did didnt do does doesnt
		doing dont down during each either else even ever every for from further get
		gets getting got had has have having he her here hers him his how i id if im
		in into is isnt it its itll ive just let lets me might mine more most much must
		my myself no nor not now of off ok okay on once only or other our ours out over
		own per please same shall she should so some such than that thats the their
		them then there these they this those through to too under until up us very
		was we were what whats when where which while who whom whose why will with
		wont would you youre your yours many now
		hello hi hey thanks thank regards dear
		want wanted wanting like need know wonder wondering tell ask asking question
		anyone someone something anything possible
		still yet already really actually maybe ago`),
	"ro": wordSet(`
		a ai al ale alt alta alte altul am ar are as asa asta astea au acea aceasta
		acel acela acele acei aceste acestea acest acesta acolo aici atat atunci avea
		avem aveti ba bine ca cam cand care careia carei caror carui cat cata cate cati
		catre ce cea cei cel cele celor cine cum cu da daca dar de deci deja despre
		din dintr dintre doar dupa e ea ei el ele era eram eu este esti fara fi fie
		fiind fost iar ii il imi in inca intr intre isi la le li lor lui m ma mai mea
		mei mele meu mi mie mult multa multe multi ne nici niste noi noastra nostru nu
		o ori pe pentru prea prin s sa sau se si sunt suntem sunteti ta tale tau te ti
		tot toata toate toti tu un una unde unei unor unui va vi voi voastra vostru
		buna ziua salut salutare multumesc multumim mersi rog va vreau vrea vrem
		doresc dori as spuneti spune puteti putea pot poate poti pute trebuie
		stiu stie aflu afla intreb intrebare cineva ceva cumva oare acum
		fac face faci facem faceti fi`),
	"ru": wordSet(`
		а без бы был была были было быть в вам вами вас весь во вот все всего всех вы
		ваш ваша ваше вашей вашего ваши где да даже для до его ее ей ему если есть еще
		же за здесь и из или им ими их к как какая какие каким какой какую когда кто
		ли либо меня мне мной мое моей моего мои мой моя мы на надо нам нами нас не
		него нее нет ни нибудь но ну о об он она они оно от очень по под при про с
		сам со так также там те тем то тоже только тот ту тут у уже хотя чем через что
		чтобы чтоб эта эти это этого этой этот эту я
		здравствуйте привет добрый пожалуйста спасибо благодарю подскажите скажите
		скажи расскажите хочу хотел хотела хотели хотим можно могу может можете
		нужно нужен нужна узнать знать интересует вопрос сейчас сколько скольки
		куда который которая которое которые которую котором
		свой своя свое свои своего своей своему своим своих свою своем
		делать сделать уже ещё`),
}

// wordSet turns a blank-separated word list into a set of folded words.
func wordSet(list string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(list) {
		m[Fold(w)] = true
	}
	return m
}
