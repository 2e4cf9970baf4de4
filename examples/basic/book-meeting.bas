PARAM room AS string LIKE "Atlas" DESCRIPTION "The meeting room to book."
PARAM day AS date LIKE "2026-12-01" DESCRIPTION "The day of the meeting."
PARAM attendees AS integer LIKE 4 DESCRIPTION "How many people will attend."
PARAM catering AS boolean OPTIONAL DESCRIPTION "Order coffee and snacks."
DESCRIPTION "Books a meeting room for a day and says whether it was free."

TALK "Booking " + room + " on " + day + " for " + attendees + " people"
RETURN "booked"
